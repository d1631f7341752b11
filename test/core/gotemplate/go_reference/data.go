package main

// Template data from JSON, with typed forms for the Go types templates meet in the provider's
// data (read identically by corpus_data.cpp on the C++ side):
//
//	plain JSON          map[string]interface{}, []interface{}, string, bool, nil,
//	                    int (a number without "." or exponent) or float64
//	{"$strings": [...]}  []string (nil when empty)
//	{"$stringmap": {..}} map[string]string
//	{"$struct": [["Name", value, "yaml:\"name,omitempty\""], ...]}  a struct (tag optional)
//	{"$ptr": value}      a pointer to value (as a struct field: *bool, *int32, ...)
//	{"$nilptr": "int"}   a nil pointer to int, bool, string or float64
//	{"$int64": 5}, {"$int32": 5}, {"$uint32": 5}  sized integers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
)

func parseData(text string) (interface{}, error) {
	if strings.TrimSpace(text) == "" {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(text)))
	dec.UseNumber()
	var raw interface{}
	if err := dec.Decode(&raw); err != nil {
		return nil, err
	}
	v, err := convert(raw)
	if err != nil {
		return nil, err
	}
	if !v.IsValid() {
		return nil, nil
	}
	return v.Interface(), nil
}

var interfaceType = reflect.TypeOf((*interface{})(nil)).Elem()

func convert(raw interface{}) (reflect.Value, error) {
	switch x := raw.(type) {
	case nil:
		return reflect.Value{}, nil
	case bool:
		return reflect.ValueOf(x), nil
	case string:
		return reflect.ValueOf(x), nil
	case json.Number:
		s := string(x)
		if !strings.ContainsAny(s, ".eE") {
			n, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				return reflect.Value{}, err
			}
			return reflect.ValueOf(int(n)), nil
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return reflect.Value{}, err
		}
		return reflect.ValueOf(f), nil
	case []interface{}:
		out := make([]interface{}, len(x))
		for i, e := range x {
			v, err := convert(e)
			if err != nil {
				return reflect.Value{}, err
			}
			if v.IsValid() {
				out[i] = v.Interface()
			}
		}
		return reflect.ValueOf(out), nil
	case map[string]interface{}:
		if len(x) == 1 {
			for k, e := range x {
				if strings.HasPrefix(k, "$") {
					return convertTyped(k, e)
				}
			}
		}
		out := make(map[string]interface{}, len(x))
		for k, e := range x {
			v, err := convert(e)
			if err != nil {
				return reflect.Value{}, err
			}
			if v.IsValid() {
				out[k] = v.Interface()
			} else {
				out[k] = nil
			}
		}
		return reflect.ValueOf(out), nil
	}
	return reflect.Value{}, fmt.Errorf("unexpected JSON value %v", raw)
}

func convertTyped(kind string, raw interface{}) (reflect.Value, error) {
	switch kind {
	case "$strings":
		list, ok := raw.([]interface{})
		if !ok {
			return reflect.Value{}, fmt.Errorf("$strings wants a list")
		}
		// An empty []string is a nil slice, as the provider's unset []string fields are.
		var out []string
		if len(list) > 0 {
			out = make([]string, len(list))
		}
		for i, e := range list {
			s, ok := e.(string)
			if !ok {
				return reflect.Value{}, fmt.Errorf("$strings wants strings")
			}
			out[i] = s
		}
		return reflect.ValueOf(out), nil
	case "$stringmap":
		m, ok := raw.(map[string]interface{})
		if !ok {
			return reflect.Value{}, fmt.Errorf("$stringmap wants an object")
		}
		out := make(map[string]string, len(m))
		for k, e := range m {
			s, ok := e.(string)
			if !ok {
				return reflect.Value{}, fmt.Errorf("$stringmap wants string values")
			}
			out[k] = s
		}
		return reflect.ValueOf(out), nil
	case "$struct":
		fields, ok := raw.([]interface{})
		if !ok {
			return reflect.Value{}, fmt.Errorf("$struct wants a list of fields")
		}
		var sfs []reflect.StructField
		var vals []reflect.Value
		for _, f := range fields {
			parts, ok := f.([]interface{})
			if !ok || len(parts) < 2 || len(parts) > 3 {
				return reflect.Value{}, fmt.Errorf("$struct field wants [name, value, tag?]")
			}
			name, _ := parts[0].(string)
			v, err := convert(parts[1])
			if err != nil {
				return reflect.Value{}, err
			}
			typ := interfaceType
			if v.IsValid() {
				typ = v.Type()
			}
			sf := reflect.StructField{Name: name, Type: typ}
			if len(parts) == 3 {
				tag, _ := parts[2].(string)
				sf.Tag = reflect.StructTag(tag)
			}
			sfs = append(sfs, sf)
			vals = append(vals, v)
		}
		st := reflect.New(reflect.StructOf(sfs)).Elem()
		for i, v := range vals {
			if v.IsValid() {
				st.Field(i).Set(v)
			}
		}
		return st, nil
	case "$ptr":
		v, err := convert(raw)
		if err != nil {
			return reflect.Value{}, err
		}
		if !v.IsValid() {
			return reflect.Value{}, fmt.Errorf("$ptr wants a value")
		}
		p := reflect.New(v.Type())
		p.Elem().Set(v)
		return p, nil
	case "$nilptr":
		name, _ := raw.(string)
		var t reflect.Type
		switch name {
		case "int":
			t = reflect.TypeOf(0)
		case "bool":
			t = reflect.TypeOf(false)
		case "string":
			t = reflect.TypeOf("")
		case "float64":
			t = reflect.TypeOf(0.0)
		default:
			return reflect.Value{}, fmt.Errorf("$nilptr: unknown type %q", name)
		}
		return reflect.Zero(reflect.PtrTo(t)), nil
	case "$int64", "$int32", "$uint32":
		n, ok := raw.(json.Number)
		if !ok {
			return reflect.Value{}, fmt.Errorf("%s wants a number", kind)
		}
		i, err := strconv.ParseInt(string(n), 10, 64)
		if err != nil {
			return reflect.Value{}, err
		}
		switch kind {
		case "$int64":
			return reflect.ValueOf(i), nil
		case "$int32":
			return reflect.ValueOf(int32(i)), nil
		default:
			return reflect.ValueOf(uint32(i)), nil
		}
	}
	return reflect.Value{}, fmt.Errorf("unknown typed value %q", kind)
}
