# Writes testdata/conformance/iri.jsonl: the project's own vectors for the
# batch ops iri and to-iri. Expected values are spelled out here, or
# computed by Python's own UTF-8 and Punycode codecs (an independent
# implementation), never by urikit.
import json, sys

def pct(s):
    return "".join(c if ord(c) < 0x80 else "".join("%%%02X" % b for b in c.encode("utf-8")) for c in s)

def ace(host):
    return ".".join(l if l.isascii() else "xn--" + l.encode("punycode").decode() for l in host.lower().split("."))

out = []
def iri(inp, src, idna="same", **parts):
    exp = {"ok": True}
    exp.update(parts)
    exp["uri"] = pct(inp)
    if idna == "same":
        exp["uri_idna"] = pct(inp)
    elif idna is not None and idna.startswith("host:"):
        h = parts["host"]
        exp["uri_idna"] = pct(inp.replace(h, idna[5:], 1))
    else:
        exp["uri_idna"] = idna
    out.append({"op": "iri", "input": inp, "expect": exp, "source": src})

def bad(inp, offset, src):
    out.append({"op": "iri", "input": inp, "expect": {"ok": False, "offset": offset}, "source": src})

def to_iri(inp, result, src):
    exp = {"ok": True, "result": result} if result is not None else {"ok": False}
    out.append({"op": "to-iri", "input": inp, "expect": exp, "source": src})

full = dict(userinfo=None, port=None, query=None, fragment=None)
iri("https://ja.wikipedia.org/wiki/東京", "issue 12: a Japanese path", scheme="https", authority="ja.wikipedia.org", host="ja.wikipedia.org", host_type="reg-name", path="/wiki/東京", **full)
iri("https://de.wikipedia.org/wiki/Köln_(Stadt)", "issue 12: a German path with parentheses", scheme="https", host="de.wikipedia.org", path="/wiki/Köln_(Stadt)")
iri("https://bücher.example/", "issue 12: an IDN host", idna="host:" + ace("bücher.example"), scheme="https", host="bücher.example", host_type="reg-name", path="/")
iri("https://th.wikipedia.org/wiki/ภาษาไทย", "Thai, written without spaces", path="/wiki/ภาษาไทย")
iri("http://日本語.jp/パス?キー=値#断片", "Japanese in every component", idna="host:" + ace("日本語.jp"), host="日本語.jp", path="/パス", query="キー=値", fragment="断片")
iri("http://ພາສາລາວ.example/ຂ້ອຍ", "Lao host and path", idna="host:" + ace("ພາສາລາວ.example"), host="ພາສາລາວ.example", path="/ຂ້ອຍ")
iri("http://例子.测试/路径", "Chinese IDN test domain", idna="http://xn--fsqu00a.xn--0zwm56d/%E8%B7%AF%E5%BE%84", host="例子.测试")
iri("http://مثال.إختبار/", "Arabic IDN test domain (RTL labels that pass RFC 5893)", idna="http://xn--mgbh0fb.xn--kgbechtv/", host="مثال.إختبار")
iri("http://☕.example/", "an emoji host", idna="host:" + ace("☕.example"), host="☕.example")
iri("https://example.com/😀/👩\u200d💻?q=🇯🇵#🎉", "emoji, a ZWJ sequence and a flag (regional indicators) in path, query, fragment", path="/😀/👩\u200d💻", query="q=🇯🇵", fragment="🎉")
iri("http://ＥＸＡＭＰＬＥ．ｃｏｍ/", "a full-width host: valid ucschar; IDNA maps it to ASCII", idna="http://example.com/", host="ＥＸＡＭＰＬＥ．ｃｏｍ")
iri("http://Bücher.EXAMPLE:8080/", "IDNA lowercases every label; the port stays", idna="http://xn--bcher-kva.example:8080/", host="Bücher.EXAMPLE", port="8080", authority="Bücher.EXAMPLE:8080")
iri("ftp://üser:päss@host/", "non-ASCII userinfo; an ASCII host is left as written", userinfo="üser:päss", host="host", authority="üser:päss@host")
iri("../ä/ö?ü#é", "a relative IRI reference", scheme=None, authority=None, host=None, host_type=None, path="../ä/ö", query="ü", fragment="é")
iri("//bücher.example", "a network-path reference", idna="//xn--bcher-kva.example", scheme=None, host="bücher.example", path="")
iri("http://example.com/?\ue000\U000F0000\U0010FFFD", "iprivate is allowed in the query", query="\ue000\U000F0000\U0010FFFD")
iri("http://xn--.ü/", "an empty ACE label fails UTS #46: uri_idna null", idna=None, host="xn--.ü")
iri("http://٠١.com/", "CheckBidi: an Arabic-Indic digit first in a label breaks RFC 5893 rule 1", idna=None, host="٠١.com")
iri("http://a\u200db.example/", "CheckJoiners: ZWJ without a virama before it", idna=None, host="a\u200db.example")
iri("http://\u00ad/", "a host of ignored code points maps to nothing: uri_idna null", idna=None, host="\u00ad")
iri("http://ü＃x.com/", "mapped to a forbidden domain code point ('#'): uri_idna null", idna=None, host="ü＃x.com")
iri("http://%C3%BC.example/", "a host without non-ASCII characters is left as written", host="%C3%BC.example")
iri("http://ü%41.example/", "a host with non-ASCII characters is percent-decoded before IDNA", idna="http://xn--a-dha.example/", host="ü%41.example")
iri("http://[::1]/ü", "an IP-literal host with a non-ASCII path", host="::1", host_type="ipv6", path="/ü")
iri("urn:isbn:978-3-16-148410-0#Kapitel-Ü", "a URN with a non-ASCII fragment", scheme="urn", authority=None, path="isbn:978-3-16-148410-0", fragment="Kapitel-Ü")
iri("mailto:jörg@bücher.example", "mailto: no authority, so the address is path text and no host is converted", path="jörg@bücher.example", host=None)

bad("http://example.com/\u202eabc", 19, "RFC 3987 §4.1: RLO is forbidden")
bad("http://example.com/a\u200eb", 20, "RFC 3987 §4.1: LRM is forbidden")
bad("http://\u200fexample.com/", 7, "RFC 3987 §4.1: RLM in the host")
bad("http://example.com/?q=\u202a", 22, "RFC 3987 §4.1: LRE in the query")
bad("http://example.com/#\u202c", 20, "RFC 3987 §4.1: PDF in the fragment")
bad("http://example.com/\u202b\u05d0", 19, "RFC 3987 §4.1: RLE before Hebrew")
bad("http://example.com/\u202d", 19, "RFC 3987 §4.1: LRO")
bad("http://example.com/\ue000", 19, "RFC 3987 §2.2: iprivate outside the query")
bad("http://example.com/#\U000F0000", 20, "RFC 3987 §2.2: iprivate in the fragment")
bad("http://example.com/\ufffd", 19, "RFC 3987 §2.2: U+FFFD is not a ucschar")
bad("http://example.com/\u0085", 19, "RFC 3987 §2.2: a C1 control is not a ucschar")
bad("http://example.com/\ufdd0", 19, "RFC 3987 §2.2: a noncharacter")
bad("http://example.com/\U000E0001", 19, "RFC 3987 §2.2: a tag character (E0000-E0FFF is not ucschar)")
bad("hé://example.com/", 3, "RFC 3987 §2.2: no scheme can hold é; read as a relative path, the colon of its first segment is the error")
bad("http://a:８０/", 15, "RFC 3987 §2.2: the port is ASCII digits; a:８０ could still be a userinfo, so the error is where '@' is missing")
bad("http://[::１]/", 10, "RFC 3987 §2.2: an IP literal is ASCII")
bad("http://example.com/ü ö", 21, "a space is not allowed, after non-ASCII text as before it")
bad("http://example.com/%zz/ü", 20, "a broken percent-encoding")

to_iri("https://ja.wikipedia.org/wiki/%E6%9D%B1%E4%BA%AC", "https://ja.wikipedia.org/wiki/東京", "RFC 3987 §3.2: UTF-8 decoded")
to_iri("http://a/%2F%3A%25%41%7e", "http://a/%2F%3A%25A~", "RFC 3987 §3.2 step 2: reserved and % stay, unreserved decoded")
to_iri("http://a/%2f%3a", "http://a/%2f%3a", "RFC 3987 §3.2 step 2: what is not decoded keeps its case")
to_iri("http://a/%20%3C%3E%22%7B%7D", "http://a/%20%3C%3E%22%7B%7D", "RFC 3987 §3.2 step 2: ASCII that a URI cannot hold stays encoded")
to_iri("http://a/%e2%80%8f", "http://a/%E2%80%8F", "RFC 3987 §3.2 step 4, §4.1: RLM encoded again, upper-case hex")
to_iri("http://a/x%E2%80%AAy%E2%80%8Ez", "http://a/x%E2%80%AAy%E2%80%8Ez", "RFC 3987 §4.1: LRE and LRM stay encoded")
to_iri("http://a/%ee%80%80?%ee%80%80", "http://a/%EE%80%80?\ue000", "RFC 3987 §3.2 step 4: iprivate decoded in the query only")
to_iri("http://a/%C0%AF..", "http://a/%C0%AF..", "RFC 3987 §8: an overlong '/' is no UTF-8 and stays encoded")
to_iri("http://a/%ed%a0%80", "http://a/%ED%A0%80", "RFC 3987 §3.2 step 3: a surrogate is no strictly legal UTF-8")
to_iri("http://a/%F0%9F%98%80", "http://a/😀", "an emoji")
to_iri("http://a/%C3%BC%FC", "http://a/ü%FC", "RFC 3987 §3.2: well-formed UTF-8 decoded, a stray byte kept")
to_iri("http://a/%e3%81%82%e3%81", "http://a/あ%E3%81", "RFC 3987 §3.2 step 3: a truncated sequence encoded again")
to_iri("http://a/%EF%BF%BD", "http://a/%EF%BF%BD", "RFC 3987 §3.2 step 4: U+FFFD is not a ucschar")
to_iri("http://a/%C2%85", "http://a/%C2%85", "RFC 3987 §3.2 step 4: a C1 control is not a ucschar")
to_iri("http://%C3%BC:%C3%A4@%C3%BC.example/", "http://ü:ä@ü.example/", "userinfo and host decoded")
to_iri("http://xn--bcher-kva.example/", "http://xn--bcher-kva.example/", "RFC 3987 §3.2.1: an xn-- host is not decoded")
to_iri("%C3%A9t%C3%A9", "été", "a relative reference")
to_iri("http://a/%E0%B8%A0%E0%B8%B2%E0%B8%A9%E0%B8%B2", "http://a/ภาษา", "Thai")
to_iri("http://a/ü", None, "the input must be a URI")
out.append({"op": "to-iri", "input": "http://a/ü", "expect": {"ok": False, "offset": 9}, "source": "the offset of the first non-URI byte"})

for c in out:
    sys.stdout.write(json.dumps(c, ensure_ascii=False) + "\n")
