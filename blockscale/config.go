package blockscale

import "encoding/json"

// ConfigBlockSize reads the block size XLA's __op$block_scaled_dot may carry in its backend config,
// {"block_scaled_dot_backend_config":{"block_size":32}} (the number may be written as a string, as
// protobuf writes an int64). It returns 0 when the config has none, or is not JSON.
func ConfigBlockSize(backendConfig string) int64 {
	var cfg map[string]map[string]any
	if json.Unmarshal([]byte(backendConfig), &cfg) != nil {
		return 0
	}
	switch v := cfg["block_scaled_dot_backend_config"]["block_size"].(type) {
	case float64:
		if v > 0 && v == float64(int64(v)) {
			return int64(v)
		}
	case string:
		var n int64
		if json.Unmarshal([]byte(v), &n) == nil && n > 0 {
			return n
		}
	}
	return 0
}
