package printer

import (
	"octet/internal/cstring"
	"testing"

	"octet/dtype"
	"octet/hlo"
)

func TestCEscape(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain text", "plain text"},
		{"a\"b", `a\"b`},
		{"it's", `it\'s`},
		{`back\slash`, `back\\slash`},
		{"tab\tnl\ncr\r", `tab\tnl\ncr\r`},
		{"\x00\x01\x1f\x7f", `\000\001\037\177`},
		{"é", `\303\251`}, // absl::CEscape escapes every byte of a multi-byte character
		{"", ""},
	} {
		if got := string(cstring.AppendEscaped(nil, tc.in)); got != tc.want {
			t.Errorf("CEscape(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestLexesAsJSONDict(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{`{}`, true},
		{`{"a":1}`, true},
		{`  {"a":{"b":"}"}}  `, true},
		{`{blah: "blah"}`, true}, // valid-ish: XLA only checks the braces
		{`{"a":1}x`, false},
		{`{"a":1`, false},
		{`this is a configuration`, false},
		{`"{}"`, false},
		{``, false},
		{`{"a":"unterminated}`, false},
		{`{"a":"\"}"}`, true},
	} {
		if got := cstring.LexesAsJSONDict(tc.in); got != tc.want {
			t.Errorf("lexesAsJSONDict(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestAppendIndentedJSON(t *testing.T) {
	in := `{"a":[],"b":{},"c":["1","2,3"],"d":{"e":[{"f":1}],"g":"x\"y"}}`
	want := `{
  "a": [],
  "b": {},
  "c": ["1", "2,3"],
  "d": {
    "e": [
      {
        "f": 1
      }
    ],
    "g": "x\"y"
  }
}`
	if got := string(appendIndentedJSON(nil, []byte(in), "")); got != want {
		t.Errorf("appendIndentedJSON:\n%s\nwant:\n%s", got, want)
	}
	pretty := "{ \"a\" : [ ] ,\n \"b\":{ },\t\"c\" : [ \"1\" , \"2,3\" ], \"d\": {\"e\": [ {\"f\": 1} ], \"g\": \"x\\\"y\"}\n}"
	if got := string(appendIndentedJSON(nil, []byte(pretty), "")); got != want {
		t.Errorf("appendIndentedJSON of indented input:\n%s\nwant:\n%s", got, want)
	}
}

func TestFormatFloat(t *testing.T) {
	tests := []struct {
		v    float64
		t    dtype.Type
		want string
	}{
		{0.1, dtype.F32, "0.1"},
		{float64(float32(1.0 / 3)), dtype.F32, "0.333333343"},
		{float64(float32(3.14159265)), dtype.F32, "3.14159274"},
		{float64(float32(1.1920929e-07)), dtype.F32, "1.1920929e-07"},
		{1e6, dtype.F32, "1e+06"},
		{100000, dtype.F32, "100000"},
		{0.1, dtype.F64, "0.1"},
		{1.0 / 3, dtype.F64, "0.33333333333333331"},
		{0.5, dtype.F64, "0.5"},
		{0.6931471805599453, dtype.F64, "0.69314718055994529"},
		{1.6759759912428242e+147, dtype.F64, "1.6759759912428242e+147"},
		{500, dtype.F16, "500"},
		{0.125, dtype.BF16, "0.125"},
		{dtype.BF16.DecodeFloat64(0x3727), dtype.BF16, "9.954e-06"},
		{0, dtype.F8E4M3FN, "0"},
		{dtype.F8E5M2.DecodeFloat64(0x3d), dtype.F8E5M2, "1.2"},
	}
	for _, tt := range tests {
		if got := string(appendFloat(nil, tt.t, hlo.EncodeFloat(tt.t, tt.v))); got != tt.want {
			t.Errorf("appendFloat(%v, %s) = %s, want %s", tt.v, tt.t, got, tt.want)
		}
	}
}

// TestFullReplicaGroupList expands iota replica groups where PrintFullReplicaGroupList asks for it, and
// prints a list that is no array of devices as written (a negative one made a slice of negative length).
func TestFullReplicaGroupList(t *testing.T) {
	p := &printer{cfg: Config{PrintFullReplicaGroupList: true}}
	for _, c := range []struct {
		il   hlo.IotaList
		want string
	}{
		{hlo.IotaList{Dims: []int64{2, 4}, ReshapeDims: []int64{4, 2}, Transpose: []int64{1, 0}}, "{{0,2,4,6},{1,3,5,7}}"},
		{hlo.IotaList{Dims: []int64{-2, -3}, ReshapeDims: []int64{6}}, "[-2,-3]<=[6]"},
		{hlo.IotaList{Dims: []int64{2, 2}, ReshapeDims: []int64{2, 2}, Transpose: []int64{0, 0}}, "[2,2]<=[2,2]T(0,0)"},
	} {
		if got := string(p.appendReplicaGroups(nil, &hlo.ReplicaGroups{Iota: &c.il})); got != c.want {
			t.Errorf("%+v: %s, want %s", c.il, got, c.want)
		}
	}
}
