package main

// The Go Karpenter Proxmox provider's template functions (v0.12.0,
// pkg/providers/instance/cloudinit/functions.go and pkg/utils/ip), reproduced with the same
// signatures and behaviour so Go's text/template applies its own argument checks to them.

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"net"
	"reflect"
	"regexp"
	"strings"
	"text/template"

	yaml "gopkg.in/yaml.v3"
)

func providerFunctions() template.FuncMap {
	return template.FuncMap{
		"default":      fnDefault,
		"coalesce":     fnCoalesce,
		"ternary":      fnTernary,
		"toJson":       fnToJSON,
		"toPrettyJson": fnToPrettyJSON,
		"toYaml":       func(v any) string { return encodeYAML(v, 4) },
		"toYamlPretty": func(v any) string { return encodeYAML(v, 2) },

		"indent":     fnIndent,
		"nindent":    func(n int, s string) string { return "\n" + fnIndent(n, s) },
		"quote":      fnQuote,
		"upper":      strings.ToUpper,
		"lower":      strings.ToLower,
		"trim":       strings.TrimSpace,
		"trimSuffix": func(suffix, s string) string { return strings.TrimSuffix(s, suffix) },
		"trimPrefix": func(prefix, s string) string { return strings.TrimPrefix(s, prefix) },
		"split":      strings.Split,
		"join":       strings.Join,

		"replace":         func(old, repl, s string) string { return strings.ReplaceAll(s, old, repl) },
		"regexFind":       fnRegexFind,
		"regexFindString": fnRegexFindString,
		"regexReplaceAll": fnRegexReplaceAll,

		"get":      fnGet,
		"getValue": fnGetValue,

		"empty":     isEmpty,
		"contains":  func(sub, s string) bool { return strings.Contains(s, sub) },
		"hasPrefix": func(prefix, s string) bool { return strings.HasPrefix(s, prefix) },
		"hasSuffix": func(suffix, s string) bool { return strings.HasSuffix(s, suffix) },
		"hasKey":    fnHasKey,
		"hasTag":    fnHasTag,

		"b64enc": func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) },
		"b64dec": fnB64Dec,

		"cidrhost":  fnCIDRHost,
		"cidrslaac": fnCIDRSlaac,
	}
}

func isEmpty(v any) bool {
	r := reflect.ValueOf(v)
	return !r.IsValid() || r.IsZero()
}

func fnDefault(def any, given ...any) any {
	if isEmpty(given) || isEmpty(given[0]) {
		return def
	}
	return given[0]
}

func fnCoalesce(vs ...any) any {
	for _, v := range vs {
		if !isEmpty(v) {
			return v
		}
	}
	return nil
}

func fnTernary(ifTrue, ifFalse any, cond bool) any {
	if cond {
		return ifTrue
	}
	return ifFalse
}

func fnToJSON(v any) string {
	out, _ := json.Marshal(v)
	return string(out)
}

func fnToPrettyJSON(v any) string {
	out, _ := json.MarshalIndent(v, "", "  ")
	return string(out)
}

// The provider encodes with sigs.k8s.io/yaml's copy of yaml.v3, which keeps a block scalar's
// leading newline; the build patches Debian's yaml.v3 to do the same (CMakeLists.txt).
func encodeYAML(v any, indent int) string {
	var out bytes.Buffer
	enc := yaml.NewEncoder(&out)
	enc.SetIndent(indent)
	_ = enc.Encode(v)
	return strings.TrimSuffix(out.String(), "\n")
}

func fnIndent(n int, s string) string {
	pad := strings.Repeat(" ", n)
	return pad + strings.ReplaceAll(s, "\n", "\n"+pad)
}

func stringOf(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []byte:
		return string(x)
	case error:
		return x.Error()
	case fmt.Stringer:
		return x.String()
	}
	return fmt.Sprintf("%v", v)
}

func fnQuote(vs ...any) string {
	parts := []string{}
	for _, v := range vs {
		if v != nil {
			parts = append(parts, fmt.Sprintf("%q", stringOf(v)))
		}
	}
	return strings.Join(parts, " ")
}

func fnRegexFind(re, s string) (string, error) {
	r, err := regexp.Compile(re)
	if err != nil {
		return "", err
	}
	return r.FindString(s), nil
}

func fnRegexFindString(re, s string, n int) (string, error) {
	r, err := regexp.Compile(re)
	if err != nil {
		return "", err
	}
	groups := r.FindStringSubmatch(s)
	if len(groups) < n+1 {
		return "", nil
	}
	return groups[n], nil
}

func fnRegexReplaceAll(re, s, repl string) (string, error) {
	r, err := regexp.Compile(re)
	if err != nil {
		return "", err
	}
	return r.ReplaceAllString(s, repl), nil
}

func fnGet(m map[string]string, key string) string {
	return m[key]
}

func fnGetValue(source, key string) string {
	for _, part := range strings.Split(source, ";") {
		kv := strings.Split(part, "=")
		if kv[0] == key {
			return kv[1]
		}
	}
	return ""
}

func fnHasKey(m map[string]any, key string) bool {
	if isEmpty(m) {
		return false
	}
	_, ok := m[key]
	return ok
}

func fnHasTag(tags []string, tag string) bool {
	if isEmpty(tags) || isEmpty(tag) {
		return false
	}
	for _, t := range tags {
		if t == tag {
			return true
		}
	}
	return false
}

func fnB64Dec(s string) (string, error) {
	out, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return "", err
	}
	return string(out), nil
}

// cidrhost(cidr[, n]): the address itself, or host n of the network (negative n counts from
// the end), as github.com/apparentlymart/go-cidr's Host.
func fnCIDRHost(cidr string, hostnum ...int) (string, error) {
	ip, network, err := net.ParseCIDR(cidr)
	if err != nil {
		return "", err
	}
	if len(hostnum) == 0 {
		return ip.String(), nil
	}
	num := hostnum[0]
	ones, bits := network.Mask.Size()
	hostBits := uint(bits - ones)
	maxHost := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), hostBits), big.NewInt(1))
	want := big.NewInt(int64(num))
	magnitude := new(big.Int).SetUint64(want.Uint64())
	if want.Sign() < 0 {
		magnitude = new(big.Int).Sub(new(big.Int).Neg(want), big.NewInt(1))
		want = new(big.Int).Sub(maxHost, magnitude)
	}
	if magnitude.Cmp(maxHost) > 0 {
		return "", fmt.Errorf("prefix of %d does not accommodate a host numbered %d", ones, num)
	}
	base := network.IP
	if v4 := base.To4(); v4 != nil {
		base = v4
	}
	sum := new(big.Int).Or(new(big.Int).SetBytes(base), want)
	out := sum.Bytes()
	full := make([]byte, len(base))
	copy(full[len(full)-len(out):], out)
	return net.IP(full).String(), nil
}

// cidrslaac(mac, cidr): the EUI-64 address of mac in an IPv6 network, with the prefix length.
func fnCIDRSlaac(mac, cidr string) (string, error) {
	_, network, err := net.ParseCIDR(cidr)
	if err != nil {
		return "", err
	}
	hw, err := net.ParseMAC(mac)
	if err != nil {
		return "", err
	}
	ones, _ := network.Mask.Size()
	if ones > 112 {
		return "", fmt.Errorf("slaac generator requires a mask of /64 to /112")
	}
	eui := make(net.IP, net.IPv6len)
	copy(eui, network.IP.To16())
	copy(eui[8:11], hw[0:3])
	copy(eui[13:16], hw[3:6])
	eui[11] = 0xFF
	eui[12] = 0xFE
	eui[8] ^= 0x02
	for i := 15; i >= ones/8; i-- {
		network.IP[i] = eui[i]
	}
	return network.String(), nil
}
