// Package printer turns Octet's HLO IR (package hlo) back into text: XLA's HLO text in the option sets
// XLA prints with, a readable form for people, or JSON.
//
// # XLA styles
//
// StyleXLA prints what XLA's HloModule::ToString() prints with default HloPrintOptions: the header
// "HloModule name, attr=..." (a module without entry_computation_layout gets the one XLA computes from the
// entry computation, layouts included, where XLA prints it), the stack frame tables, then every computation
// ("ENTRY %name (p: f32[2]) -> f32[2] {", instructions indented by two spaces with "ROOT" before the root,
// operands with their shapes and /*index=N*/ before every fifth one, "}" and the computation's attributes).
// StyleXLALong adds large constants and StyleXLAShort is HloPrintOptions::ShortParsable(). For text XLA
// printed with those options the output equals the input byte for byte, trailing white space aside.
//
// Instructions keep their attributes in the order the IR holds them (for parsed text, the order XLA wrote
// them); Config only decides which are printed. Values print as package hlo documents in attr.go;
// strings are C-escaped as absl::CEscape does, and a backend_config is written raw when it lexes as a
// JSON dictionary and quoted otherwise, as XLA decides. The metadata strings XLA escapes (op_type,
// op_name, source_file, deduplicated_name) are printed as XLA prints them whatever form the text gave
// them in: a character of raw UTF-8 as the octal escapes of its bytes (caf\303\251), as CEscape writes it.
//
// # Readable style
//
// StyleReadable is "octet print"'s default: no "%", no operand shapes, default layouts left out, no
// metadata or stack frames (Config.PrintMetadata brings them back), no fingerprint entries in the
// module's frontend attributes, and every JSON backend_config indented under its instruction.
// Config.Annotate lets the caller put comment lines under instructions; "octet print" uses it to
// summarise every cuBLAS GEMM custom call (package cublas), for example
//
//	// cuBLASLt FP8 GEMM: D f8e5m2[128,128] = f8e4m3fn[128,128] × f8e5m2[128,128]ᵀ, a_scale=constant_1 ...
//
// Config.Color adds ANSI colours for names, opcodes, shapes and annotations. The readable form is for
// reading, and without colour it also reads back: package parser takes it (a backend config under its
// instruction follows a comma, as any attribute does; annotations are comments), to a module that prints
// the same. What it leaves out (metadata, stack frames, default layouts) is not in that module.
//
// Everything the readable style shows of the module's own strings (names, frontend attribute and metadata
// values, backend configs, shardings, annotations) is escaped as package internal/safetext escapes it: a
// newline, a control character, an invisible or direction-changing character or a byte that is not UTF-8
// is written as absl::CEscape writes it (\n, \033, \342\200\256), so that each instruction is one line
// and no value can pass for another line, colour the terminal or reorder the text. (A metadata string
// shows its characters: op_name="café" where XLA prints op_name="caf\303\251".) A header table that XLA
// prints over several lines (debug_attributes, origin_recovery_table) is written, when it holds what is
// escaped, as one C-escaped string, debug_attributes="{\n  ...\n}", which package parser reads back to the
// table. The XLA styles print strings as XLA does, byte for byte.
//
// Config.InstructionLine reports the line each instruction is printed on, for callers that link to the
// text (the report's pages).
//
// # JSON style
//
// StyleJSON writes one JSON object per module:
//
//	{
//	  "name": "jit_f",                      module name
//	  "entry": "main.4",                    entry computation
//	  "attributes": {"is_scheduled": "true", "entry_computation_layout": "{(f32[2]{0})->f32[2]{0}}", ...},
//	  "stack_frames": {                     with metadata only
//	    "file_names": [...], "function_names": [...],
//	    "file_locations": [{"file_name_id": 1, "function_name_id": 1, "line": 3, "end_line": 3,
//	                        "column": 4, "end_column": 9}, ...],
//	    "frames": [{"file_location_id": 1, "parent_frame_id": 1}, ...]},
//	  "computations": [{
//	    "name": "main.4", "entry": true,
//	    "parameters": [{"name": "p0", "shape": "f32[2]{0}"}, ...],
//	    "result": "f32[2]{0}",
//	    "attributes": {"execution_thread": "\"host\""},   only when there are some
//	    "instructions": [{
//	      "name": "add.1", "opcode": "add", "shape": "f32[2]{0}",
//	      "root": true,                     on the root only
//	      "parameter_number": 0,            parameters only
//	      "literal": "{1, 2}",              constants only ("{...}" when large constants are not asked for)
//	      "operands": ["p0", "p1"],
//	      "attributes": {"dimensions": "{0}", "to_apply": "add", ...},   as XLA's text, without "%"
//	      "metadata": {"op_name": "jit(f)/add", "source_line": "3"},     unquoted values; with metadata only
//	      "backend_config": {...}           the JSON itself when it is JSON, else a string
//	    }, ...]
//	  }, ...]
//	}
//
// Attribute values and shapes are the strings the XLA style prints, except that string values
// (custom_call_target) are given unquoted; member order follows the module.
//
// # What it is not
//
// The printer does not reorder, rename or canonicalise: it prints the instructions in the order of
// Computation.Instructions and the names they have. It knows HLO and nothing built on it: what a custom
// call means (cuBLAS, fusion decisions) reaches the output only through Config.Annotate, so the package
// imports nothing above package hlo. Options of XLA's printer that only make sense for
// modules XLA builds itself (canonical names, print_ids, fingerprints, sorted computations) have no
// counterpart in Config.
package printer
