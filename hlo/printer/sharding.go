package printer

import (
	"strconv"
	"strings"

	"octet/hlo"
)

// TiledSharding writes a tiled sharding as XLA does, without its braces: devices=[2,2]<=[4]
// last_tile_dim_replicate, devices=[2,1,2]0,2,1,3 last_tile_dims={manual, replicated}. It reads s's
// TileDims, its devices (DevicesIota, whose Dims are TileDims and are not read, or else Devices in
// row-major order), LastTileDimReplicate and LastTileDims, for the readers that make sharding text from a
// proto or from another dialect's sharding.
func TiledSharding(s *hlo.Sharding) string {
	b := []byte("devices=")
	if s.DevicesIota != nil {
		b = appendIotaList(b, s.TileDims, s.DevicesIota)
	} else {
		b = append(b, '[')
		b = appendInts(b, s.TileDims, ",")
		b = append(b, ']')
		b = appendInts(b, s.Devices, ",")
	}
	if s.LastTileDimReplicate {
		b = append(b, " last_tile_dim_replicate"...)
	}
	if len(s.LastTileDims) > 0 {
		b = append(b, " last_tile_dims={"...)
		b = append(b, strings.Join(s.LastTileDims, ", ")...)
		b = append(b, '}')
	}
	return string(b)
}

// TupleSharding writes the sharding of a tuple from its elements' shardings, with an index comment before
// every fifth element as XLA does: {{replicated}, {maximal device=0}}.
func TupleSharding(elems []string) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, e := range elems {
		switch {
		case i == 0:
		case i%5 == 0:
			b.WriteString(", /*index=" + strconv.Itoa(i) + "*/")
		default:
			b.WriteString(", ")
		}
		b.WriteString(e)
	}
	b.WriteByte('}')
	return b.String()
}
