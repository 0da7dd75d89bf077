package scheme

import (
	"path/filepath"
	"strings"

	"github.com/urikit/urikit/uri"
)

func init() {
	register(Info{Name: "file", Hierarchical: true, RFC: "RFC 8089", Title: "files on a host's file system"},
		func(u uri.URI) (Fields, error) {
			f, err := ParseFile(u)
			if err != nil {
				return nil, err
			}
			return f.Fields(), nil
		})
}

// File is a file URI (RFC 8089 §2, with the DOS drive letters of
// Appendix E.2):
//
//	file:///path  file:/path  file://host/path  file:///c:/path  file:c:/path
type File struct {
	// Host is unset without an authority (file:/p, file:c:/p), "" for
	// file:///p and the decoded host otherwise; "localhost" is kept as
	// written (it means the local machine, RFC 8089 §2).
	Host Opt
	// Path is the decoded path as written: "/etc/fstab", "/c:/dir/f.txt",
	// or "c:/dir/f.txt" for the Appendix E.2 form.
	Path string
}

// ParseFile reads a file URI. A query, a port, or a path that starts
// neither with "/" nor with a drive letter ("file:foo") is an error.
func ParseFile(u uri.URI) (File, error) {
	const sch = "file"
	if _, err := checkScheme(u, sch); err != nil {
		return File{}, err
	}
	if u.HasQuery() {
		return File{}, errField(sch, "query", "not allowed in a file URI (RFC 8089 §2)")
	}
	if u.HasPort() {
		return File{}, errField(sch, "host", "a file URI has no port (RFC 8089 §2)")
	}
	p := u.Path()
	// RFC 8089 Appendix E.2: local-path = [ drive-letter ] path-absolute,
	// so a drive letter needs a "/" after it: file:c:/ is a path, file:c:
	// and file:c:x are not.
	if !strings.HasPrefix(p, "/") && !(hasDrive(p) && len(p) > 2) {
		return File{}, errField(sch, "path", "must start with \"/\" or a drive letter and \"/\" (RFC 8089 §2, Appendix E.2)")
	}
	f := File{Path: decode(p)}
	if u.HasAuthority() {
		f.Host = Some(u.DecodedHost())
	}
	return f, nil
}

// hasDrive reports whether p starts with a drive letter and a slash, or is
// just the drive letter: ALPHA ":" ["/" ...] (RFC 8089 Appendix E.2).
func hasDrive(p string) bool {
	return len(p) >= 2 && isAlpha(p[0]) && p[1] == ':' && (len(p) == 2 || p[2] == '/')
}

func isAlpha(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// IsLocal reports whether the file is on the machine that reads the URI:
// no host, an empty host, or "localhost" (RFC 8089 §3).
func (f File) IsLocal() bool {
	return !f.Host.Set || f.Host.Value == "" || strings.EqualFold(f.Host.Value, "localhost")
}

// Fields returns host and path.
func (f File) Fields() Fields {
	return Fields{{"host", f.Host.value()}, {"path", f.Path}}
}

// URI builds the file URI: file://host/path, file:///path for an empty or
// unset Host (the form RFC 8089 §2 recommends).
func (f File) URI() (uri.URI, error) {
	const sch = "file"
	p := f.Path
	switch {
	case hasDrive(p):
		p = "/" + p
	case !strings.HasPrefix(p, "/"):
		return uri.URI{}, errField(sch, "path", "must start with \"/\" or a drive letter")
	}
	var b strings.Builder
	b.WriteString("file:")
	if f.Host.Set || strings.HasPrefix(p, "//") {
		buildAuthority(&b, Opt{}, Opt{}, f.Host.Value, 0, 0)
	} else {
		b.WriteString("//")
	}
	b.WriteString(uri.Escape(p, uri.ComponentPath))
	return parseBuilt(sch, b.String())
}

// PathStyle says which operating system's path rules a conversion follows,
// whatever the system the program runs on.
type PathStyle uint8

const (
	// Unix paths: "/" separates, an absolute path starts with "/".
	Unix PathStyle = iota + 1
	// Windows paths: "\" or "/" separate; absolute paths are drive paths
	// (c:\dir) or UNC paths (\\server\share\dir).
	Windows
)

// NativeStyle is the style of the system the program runs on.
func NativeStyle() PathStyle {
	if filepath.Separator == '\\' {
		return Windows
	}
	return Unix
}

func (s PathStyle) String() string {
	switch s {
	case Unix:
		return "unix"
	case Windows:
		return "windows"
	}
	return "PathStyle(?)"
}

// OSPath converts the file URI to a path of the given style.
//
// Unix: the local path ("file:///etc/fstab" is "/etc/fstab"); a non-local
// host or a drive letter is an error. Windows: "file:///c:/dir/f" and
// "file:c:/dir/f" are "c:\dir\f"; "file://server/share/f" and the UNC
// string in the path of Appendix E.3.2 ("file:////server/share/f") are
// "\\server\share\f". A NUL byte, or on Windows a decoded "\", is an
// error. Path holds decoded text, where "%2F" became "/": use
// OSPathFromURI to refuse an encoded separator.
func (f File) OSPath(style PathStyle) (string, error) {
	const sch = "file"
	segs := strings.Split(f.Path, "/")
	for _, s := range segs {
		if strings.IndexByte(s, 0) >= 0 {
			return "", errField(sch, "path", "holds a NUL byte")
		}
	}
	switch style {
	case Unix:
		if !f.IsLocal() {
			return "", errField(sch, "host", "\""+f.Host.Value+"\" is not local; a Unix path cannot name another host")
		}
		if hasDrive(f.Path) {
			return "", errField(sch, "path", "\""+f.Path+"\" starts with a drive letter, which a Unix path cannot")
		}
		return strings.Join(segs, "/"), nil
	case Windows:
		for _, s := range segs {
			if strings.IndexByte(s, '\\') >= 0 {
				return "", errField(sch, "path", "a segment holds a \"\\\" (an encoded separator)")
			}
		}
		if !f.IsLocal() {
			// RFC 8089 Appendix E.3.1: host to UNC host-name, path to share and objects.
			if len(segs) < 2 || segs[1] == "" {
				return "", errField(sch, "path", "a UNC path needs a share name")
			}
			return `\\` + f.Host.Value + `\` + strings.Join(segs[1:], `\`), nil
		}
		switch {
		case hasDrive(f.Path): // file:c:/dir
			return winDrive(segs), nil
		case len(segs) > 1 && hasDrive(segs[1]+"/"): // file:///c:/dir
			return winDrive(segs[1:]), nil
		case len(segs) > 3 && segs[1] == "": // file:////server/share, file://///server/share (E.3.2)
			unc := segs[2:]
			if unc[0] == "" {
				unc = unc[1:]
			}
			if len(unc) < 2 || unc[0] == "" || unc[1] == "" {
				return "", errField(sch, "path", "a UNC path needs a server and a share name")
			}
			return `\\` + strings.Join(unc, `\`), nil
		}
		return strings.Join(segs, `\`), nil
	}
	return "", errField(sch, "path", "unknown path style")
}

// OSPathFromURI parses u as a file URI and converts it to a path of the
// given style, refusing a segment with an encoded "/" (or, for Windows,
// "\"): decoded, it would name another file.
func OSPathFromURI(u uri.URI, style PathStyle) (string, error) {
	f, err := ParseFile(u)
	if err != nil {
		return "", err
	}
	for _, seg := range strings.Split(u.Path(), "/") {
		d := decode(seg)
		if strings.IndexByte(d, '/') >= 0 || style == Windows && strings.IndexByte(d, '\\') >= 0 {
			return "", errField("file", "path", "segment \""+seg+"\" holds an encoded separator")
		}
	}
	return f.OSPath(style)
}

// winDrive joins "c:", "dir", "f" as c:\dir\f (and "c:" alone as c:\).
func winDrive(segs []string) string {
	if len(segs) == 1 {
		return segs[0] + `\`
	}
	return strings.Join(segs, `\`)
}

// FileURIFromPath converts an absolute path of the given style to a file
// URI: "/etc/fstab" is file:///etc/fstab; Windows "c:\dir\f" is
// file:///c:/dir/f and "\\server\share\f" is file://server/share/f (RFC
// 8089 Appendix E.3.1). The Win32 prefixes "\\?\" and "\\?\UNC\" are
// understood. Relative paths are an error: a URI cannot hold a path
// relative to an unknown directory.
func FileURIFromPath(path string, style PathStyle) (uri.URI, error) {
	const sch = "file"
	if strings.IndexByte(path, 0) >= 0 {
		return uri.URI{}, errField(sch, "path", "holds a NUL byte")
	}
	var host string
	var segs []string
	switch style {
	case Unix:
		if !strings.HasPrefix(path, "/") {
			return uri.URI{}, errField(sch, "path", "\""+path+"\" is not absolute")
		}
		segs = strings.Split(path[1:], "/")
	case Windows:
		p := strings.ReplaceAll(path, `/`, `\`)
		switch {
		case strings.HasPrefix(p, `\\?\UNC\`):
			p = `\\` + p[len(`\\?\UNC\`):]
		case strings.HasPrefix(p, `\\?\`):
			p = p[len(`\\?\`):]
		case strings.HasPrefix(p, `\\.\`):
			return uri.URI{}, errField(sch, "path", "a Win32 device path has no file URI")
		}
		switch {
		case strings.HasPrefix(p, `\\`):
			parts := strings.Split(p[2:], `\`)
			if len(parts) < 2 || parts[0] == "" || parts[1] == "" {
				return uri.URI{}, errField(sch, "path", "\""+path+"\" is not a UNC path \\\\server\\share")
			}
			host, segs = parts[0], parts[1:]
		case len(p) >= 3 && isAlpha(p[0]) && p[1] == ':' && p[2] == '\\':
			segs = strings.Split(p, `\`)
		case len(p) == 2 && isAlpha(p[0]) && p[1] == ':':
			return uri.URI{}, errField(sch, "path", "\""+path+"\" is relative to the drive's current directory")
		default:
			return uri.URI{}, errField(sch, "path", "\""+path+"\" is not absolute (want c:\\... or \\\\server\\share\\...)")
		}
	default:
		return uri.URI{}, errField(sch, "path", "unknown path style")
	}
	var b strings.Builder
	b.WriteString("file://")
	b.WriteString(escapeHost(host))
	for _, s := range segs {
		b.WriteByte('/')
		b.WriteString(uri.Escape(s, uri.ComponentPathSegment))
	}
	return parseBuilt(sch, b.String())
}
