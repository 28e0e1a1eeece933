package interp

import "unsafe"

// The views below let a float32 or int64 working slice become a tensor's data, and a tensor's data a
// working slice, without a copy.

func float32Bytes(x []float32) []byte {
	if len(x) == 0 {
		return []byte{}
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&x[0])), 4*len(x))
}

func float64Bytes(x []float64) []byte {
	if len(x) == 0 {
		return []byte{}
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&x[0])), 8*len(x))
}

func int64Bytes(x []int64) []byte {
	if len(x) == 0 {
		return []byte{}
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&x[0])), 8*len(x))
}

// bytesFloat32 views float32 data held as bytes (four-byte aligned, as tensors are allocated).
func bytesFloat32(b []byte) []float32 {
	if len(b) < 4 {
		return []float32{}
	}
	return unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/4)
}

// bytesUint16 views the first n two-byte elements held in b (two-byte aligned, as tensors are allocated).
func bytesUint16(b []byte, n int) []uint16 {
	return unsafe.Slice((*uint16)(unsafe.Pointer(unsafe.SliceData(b))), n)
}
