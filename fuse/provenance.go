package fuse

import (
	"fmt"
	"strconv"
	"strings"

	"octet/hlo"
)

// Provenance says where an instruction came from, from its metadata: the op_name, the source_file and
// source_line, and the stack frames of the module's tables where the metadata names one (innermost
// first, at most five). It is "" when the metadata says nothing.
func Provenance(in *hlo.Instruction) string {
	if in == nil {
		return ""
	}
	md := in.Metadata()
	opName, _ := md.Get("op_name")
	file, _ := md.Get("source_file")
	line, _ := md.Get("source_line")
	frameID, _ := md.Get("stack_frame_id")
	frame := frameNumber(in, frameID)
	var parts []string
	if opName != "" {
		parts = append(parts, strconv.Quote(opName))
	}
	if file != "" {
		at := file
		if line != "" && line != "0" {
			at += ":" + line
		}
		parts = append(parts, "at "+at)
	}
	if s := stack(in, frame); s != "" {
		parts = append(parts, "stack "+s)
	}
	return strings.Join(parts, " ")
}

// frameNumber is the number of the stack frame of the module's tables whose id is written id, or 0.
func frameNumber(in *hlo.Instruction, id string) int64 {
	if id == "" || in.Parent == nil || in.Parent.Module == nil || in.Parent.Module.StackFrames == nil {
		return 0
	}
	for i := range in.Parent.Module.StackFrames.Frames {
		if strconv.Itoa(i+1) == id {
			return int64(i + 1)
		}
	}
	return 0
}

// stack follows stack frame id through the module's tables, innermost first: "f (a.py:3) <- g (b.py:10)".
func stack(in *hlo.Instruction, id int64) string {
	if id <= 0 || in.Parent == nil || in.Parent.Module == nil || in.Parent.Module.StackFrames == nil {
		return ""
	}
	t := in.Parent.Module.StackFrames
	var frames []string
	for n := 0; id > 0 && id <= int64(len(t.Frames)) && n < 5; n++ {
		f := t.Frames[id-1]
		if f.FileLocationID > 0 && f.FileLocationID <= int64(len(t.FileLocations)) {
			loc := t.FileLocations[f.FileLocationID-1]
			name, file := "?", "?"
			if loc.FunctionNameID > 0 && loc.FunctionNameID <= int64(len(t.FunctionNames)) {
				name = t.FunctionNames[loc.FunctionNameID-1]
			}
			if loc.FileNameID > 0 && loc.FileNameID <= int64(len(t.FileNames)) {
				file = t.FileNames[loc.FileNameID-1]
			}
			frames = append(frames, fmt.Sprintf("%s (%s:%d)", name, file, loc.Line))
		}
		// The text numbers a frame's parent one past its id (XLA prints parent_frame_id+1 of a 1-based
		// id): 1 is no parent.
		if f.ParentFrameID-1 >= id {
			break
		}
		id = f.ParentFrameID - 1
	}
	return strings.Join(frames, " <- ")
}
