package parse

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"unicode/utf16"
)

func utf16Bytes(s string, bigEndian, bom bool) []byte {
	var b bytes.Buffer
	units := utf16.Encode([]rune(s))
	if bom {
		units = append([]uint16{0xFEFF}, units...)
	}
	for _, u := range units {
		if bigEndian {
			b.Write([]byte{byte(u >> 8), byte(u)})
		} else {
			b.Write([]byte{byte(u), byte(u >> 8)})
		}
	}
	return b.Bytes()
}

// Issue 21, item 8: Latin-1 and UTF-16 text files were refused as binary; they are decoded.
func TestLegacyEncodingsAreDecoded(t *testing.T) {
	const text = "Café au lait costs 3 € in Paris.\nCrème brûlée, naïve, Zürich, Åre.\n"
	tests := []struct {
		name, file string
		body       []byte
		want       string
	}{
		{"Latin-1", "menu.txt", []byte("Caf\xe9 au lait, cr\xe8me br\xfbl\xe9e, Z\xfcrich.\n"), "Café au lait, crème brûlée, Zürich.\n"},
		{"Windows-1252 with the euro sign", "price.md", []byte("# Prices\n\nCaf\xe9 costs 3 \x80 \x96 \x93cheap\x94.\n"), "# Prices\n\nCafé costs 3 € – “cheap”.\n"},
		{"UTF-16LE with BOM (Notepad)", "notes.txt", utf16Bytes(text, false, true), text},
		{"UTF-16BE with BOM", "notes.txt", utf16Bytes(text, true, true), text},
		{"UTF-16LE without BOM", "notes.md", utf16Bytes(text, false, false), text},
		{"UTF-16BE without BOM", "notes.txt", utf16Bytes(text, true, false), text},
		{"UTF-8 with BOM", "notes.txt", append([]byte("\xEF\xBB\xBF"), text...), text},
		{"UTF-8 with CRLF", "notes.txt", []byte("Zürich\r\nÅre\r\n"), "Zürich\nÅre\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := Parse(context.Background(), tt.file, bytes.NewReader(tt.body), Limits{}, nil)
			if err != nil {
				t.Fatalf("refused: %v", err)
			}
			if doc.Markdown != tt.want {
				t.Errorf("text %q, want %q", doc.Markdown, tt.want)
			}
		})
	}
}

// Binary content stays refused after the decoders had their chance.
func TestBinaryIsStillRefused(t *testing.T) {
	for name, body := range map[string][]byte{
		"NUL bytes":               []byte("ab\x00cd\x00ef\x01\x02"),
		"control bytes, no NULs":  bytes.Repeat([]byte{0x01, 0x02, 0x03, 0xff, 0x80, 0x1b}, 20),
		"odd-length UTF-16 shape": append(utf16Bytes("hello world", false, false), 0x41),
		"PNG":                     append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), bytes.Repeat([]byte{0, 1, 2, 0xff}, 64)...),
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := Parse(context.Background(), "x.txt", bytes.NewReader(body), Limits{}, nil); !errors.Is(err, ErrBinary) {
				t.Errorf("err = %v, want ErrBinary", err)
			}
		})
	}
}
