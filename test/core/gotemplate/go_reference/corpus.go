package main

// The corpus format, read identically by the C++ differential test (corpus_reader.cpp):
//
//	=== case-name [newer-go] or [not-yet] (a known difference, listed in core/gotemplate/README.md)
//	--- template
//	{{ .a }}
//	--- data
//	{"a": 1}
//	--- expect
//	text the engine must print (newer-go cases only; Go 1.19 cannot run them)
//
// A section's content is the lines after its header up to the next header, joined by "\n"
// without a final newline; "--- template TEXT" holds one line inline. Lines outside a case and
// lines starting with "#" before the first section of a case are comments.

import (
	"bufio"
	"fmt"
	"os"
	"strings"
)

type corpusCase struct {
	name     string
	newerGo  bool
	template string
	data     string
	hasData  bool
	expect   string
}

func readCorpus(path string) ([]corpusCase, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var cases []corpusCase
	var cur *corpusCase
	section := ""
	var lines []string
	flush := func() {
		if cur == nil || section == "" {
			return
		}
		text := strings.Join(lines, "\n")
		switch section {
		case "template":
			cur.template = text
		case "data":
			cur.data = text
			cur.hasData = true
		case "expect":
			cur.expect = text
		}
		section = ""
		lines = nil
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "=== ") {
			flush()
			words := strings.Fields(line[4:])
			if len(words) == 0 {
				return nil, fmt.Errorf("%s: a case without a name", path)
			}
			cases = append(cases, corpusCase{name: words[0]})
			cur = &cases[len(cases)-1]
			for _, w := range words[1:] {
				if w == "[newer-go]" {
					cur.newerGo = true
				} else if w == "[not-yet]" {
					// rendered as any case; the C++ test expects it to differ
				} else {
					return nil, fmt.Errorf("%s: case %s: unknown mark %q", path, words[0], w)
				}
			}
			continue
		}
		if strings.HasPrefix(line, "--- ") && cur != nil {
			flush()
			header := line[4:]
			name, inline, hasInline := strings.Cut(header, " ")
			switch name {
			case "template", "data", "expect":
			default:
				return nil, fmt.Errorf("%s: case %s: unknown section %q", path, cur.name, name)
			}
			section = name
			if hasInline {
				lines = []string{inline}
				flush()
			}
			continue
		}
		if section != "" {
			lines = append(lines, line)
		}
	}
	flush()
	return cases, sc.Err()
}
