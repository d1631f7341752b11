// go_reference renders the differential corpus with Go's text/template and the Go provider's
// function set, for test/core/gotemplate/differential_test.cpp. Usage: go_reference FILE...
// It prints, for each case: "=== NAME" then "ok N", "error N" (N bytes follow, then a
// newline) or "skip" (a newer-go case, which Go 1.19 cannot run).
package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"text/template"
)

func render(c corpusCase) (string, error) {
	data, err := parseData(c.data)
	if err != nil {
		return "", fmt.Errorf("corpus data: %w", err)
	}
	t, err := template.New("tpl").Funcs(providerFunctions()).Parse(c.template)
	if err != nil {
		return "", err
	}
	var out bytes.Buffer
	if err := t.Execute(&out, data); err != nil {
		return "", err
	}
	return out.String(), nil
}

func main() {
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	for _, path := range os.Args[1:] {
		cases, err := readCorpus(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		for _, c := range cases {
			fmt.Fprintf(w, "=== %s\n", c.name)
			if c.newerGo {
				fmt.Fprintln(w, "skip")
				continue
			}
			out, err := render(c)
			if err != nil {
				fmt.Fprintf(w, "error %d\n%s\n", len(err.Error()), err.Error())
			} else {
				fmt.Fprintf(w, "ok %d\n%s\n", len(out), out)
			}
		}
	}
}
