package scheme

import "testing"

func TestOSPath(t *testing.T) {
	tests := []struct {
		in    string
		style PathStyle
		want  string // "" for an error
	}{
		{"file:///etc/fstab", Unix, "/etc/fstab"},
		{"file:/etc/fstab", Unix, "/etc/fstab"},
		{"file://localhost/etc/fstab", Unix, "/etc/fstab"},
		{"file:///a%20b/c%C3%A9", Unix, "/a b/cé"},
		{"file:///c:/dir", Unix, "/c:/dir"},
		{"file:c:/dir", Unix, ""},
		{"file://host.example.com/x", Unix, ""},
		{"file:///a%00b", Unix, ""},

		{"file:///c:/dir", Windows, `c:\dir`},
		{"file:///C:/path/to/file.txt", Windows, `C:\path\to\file.txt`},
		{"file:c:/path/to/file", Windows, `c:\path\to\file`},
		{"file:///c:", Windows, `c:\`},
		{"file:///c:/", Windows, `c:\`},
		{"file://localhost/c:/x", Windows, `c:\x`},
		{"file://server/share/x", Windows, `\\server\share\x`},
		{"file://host.example.com/Share/path/to/file.txt", Windows, `\\host.example.com\Share\path\to\file.txt`},
		{"file:////host.example.com/path/to/file", Windows, `\\host.example.com\path\to\file`},
		{"file://///host.example.com/path/to/file", Windows, `\\host.example.com\path\to\file`},
		{"file://server/", Windows, ""},
		{"file:///dir/f", Windows, `\dir\f`},
		{"file:///c:/a%5Cb", Windows, ""},
	}
	for _, tt := range tests {
		f, err := ParseFile(mustURI(t, tt.in))
		if err != nil {
			t.Fatalf("%s: %v", tt.in, err)
		}
		got, err := f.OSPath(tt.style)
		switch {
		case tt.want == "" && err == nil:
			t.Errorf("%s (%v): got %q, want an error", tt.in, tt.style, got)
		case tt.want != "" && err != nil:
			t.Errorf("%s (%v): %v", tt.in, tt.style, err)
		case got != tt.want:
			t.Errorf("%s (%v) = %q, want %q", tt.in, tt.style, got, tt.want)
		}
	}
}

func TestOSPathFromURI(t *testing.T) {
	if _, err := OSPathFromURI(mustURI(t, "file:///a%2Fb"), Unix); err == nil {
		t.Error("an encoded / was accepted")
	}
	if _, err := OSPathFromURI(mustURI(t, "file:///c:/a%5Cb"), Windows); err == nil {
		t.Error("an encoded \\ was accepted on Windows")
	}
	if p, err := OSPathFromURI(mustURI(t, "file:///a%5Cb"), Unix); err != nil || p != `/a\b` {
		t.Errorf("Unix %%5C: %q %v", p, err)
	}
}

func TestFileURIFromPath(t *testing.T) {
	tests := []struct {
		in    string
		style PathStyle
		want  string // "" for an error
	}{
		{"/etc/fstab", Unix, "file:///etc/fstab"},
		{"/a b/c#d?e%f", Unix, "file:///a%20b/c%23d%3Fe%25f"},
		{"/tmp/café", Unix, "file:///tmp/caf%C3%A9"},
		{"/", Unix, "file:///"},
		{`C:\dir\f.txt`, Unix, ""}, // relative for Unix
		{"rel/x", Unix, ""},
		{"/a\x00b", Unix, ""},

		{`c:\dir`, Windows, "file:///c:/dir"},
		{`C:\Program Files\x.txt`, Windows, "file:///C:/Program%20Files/x.txt"},
		{`c:/mixed\seps`, Windows, "file:///c:/mixed/seps"},
		{`c:\`, Windows, "file:///c:/"},
		{`\\server\share\x`, Windows, "file://server/share/x"},
		{`\\host.example.com\Share\path\to\file.txt`, Windows, "file://host.example.com/Share/path/to/file.txt"},
		{`\\?\C:\very\long`, Windows, "file:///C:/very/long"},
		{`\\?\UNC\server\share\f`, Windows, "file://server/share/f"},
		{`\\.\PhysicalDrive0`, Windows, ""},
		{`\\server`, Windows, ""},
		{`c:`, Windows, ""},
		{`c:dir`, Windows, ""},
		{`\dir`, Windows, ""},
		{`/etc/fstab`, Windows, ""},
	}
	for _, tt := range tests {
		u, err := FileURIFromPath(tt.in, tt.style)
		switch {
		case tt.want == "" && err == nil:
			t.Errorf("%q (%v): got %s, want an error", tt.in, tt.style, u)
		case tt.want != "" && err != nil:
			t.Errorf("%q (%v): %v", tt.in, tt.style, err)
		case tt.want != "" && u.String() != tt.want:
			t.Errorf("%q (%v) = %s, want %s", tt.in, tt.style, u, tt.want)
		}
		if err != nil {
			continue
		}
		// And back: the path converts to itself (separators as the style writes them).
		back, err := OSPathFromURI(u, tt.style)
		if err != nil {
			t.Errorf("%s back to a path: %v", u, err)
			continue
		}
		want := tt.in
		if tt.style == Windows {
			want = winClean(tt.in)
		}
		if back != want {
			t.Errorf("round trip %q -> %s -> %q", tt.in, u, back)
		}
	}
}

// winClean is what a Windows path reads back as: "/" written "\", the
// Win32 prefixes dropped.
func winClean(p string) string {
	b := []byte(p)
	for i := range b {
		if b[i] == '/' {
			b[i] = '\\'
		}
	}
	s := string(b)
	switch {
	case len(s) > 8 && s[:8] == `\\?\UNC\`:
		return `\\` + s[8:]
	case len(s) > 4 && s[:4] == `\\?\`:
		return s[4:]
	}
	return s
}

func TestNativeStyle(t *testing.T) {
	if s := NativeStyle(); s != Unix && s != Windows {
		t.Errorf("NativeStyle() = %v", s)
	}
	if Unix.String() != "unix" || Windows.String() != "windows" {
		t.Error("PathStyle.String")
	}
}
