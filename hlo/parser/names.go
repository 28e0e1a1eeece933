package parser

import (
	"hash/maphash"

	"octet/hlo"
)

// nameTable maps instruction names to instructions. It is a hash table of open addressing over a dense
// list of entries kept in insertion order: the slots, four times smaller than the entries, stay in cache,
// and the entries of the instructions defined last, which most operands name, are near one another.
type nameTable struct {
	seed maphash.Seed
	// slots hold, for each occupied slot, the upper 32 bits of the name's hash and its entry's index plus
	// one; 0 is an empty slot. len(slots) is a power of two at least twice len(entries).
	slots   []uint64
	entries []nameEntry
}

type nameEntry struct {
	name string
	in   *hlo.Instruction
}

// nameSlot is where a name is, or would be inserted, in a nameTable; valid until a name is inserted.
type nameSlot struct {
	i    int
	hash uint64
}

// newNameTable returns a table sized for n names.
func newNameTable(n int) *nameTable {
	size := 16
	for size < 2*n {
		size *= 2
	}
	return &nameTable{seed: maphash.MakeSeed(), slots: make([]uint64, size), entries: make([]nameEntry, 0, n)}
}

// find returns the instruction named name (nil when none is) and its slot.
func (t *nameTable) find(name string) (*hlo.Instruction, nameSlot) {
	h := maphash.String(t.seed, name)
	tag := h &^ (1<<32 - 1)
	mask := len(t.slots) - 1
	for i := int(h) & mask; ; i = (i + 1) & mask {
		s := t.slots[i]
		if s == 0 {
			return nil, nameSlot{i, h}
		}
		if s&^(1<<32-1) == tag {
			if e := &t.entries[s&(1<<32-1)-1]; e.name == name {
				return e.in, nameSlot{i, h}
			}
		}
	}
}

// get returns the instruction named name, or nil.
func (t *nameTable) get(name string) *hlo.Instruction {
	in, _ := t.find(name)
	return in
}

// set makes in the instruction named name.
func (t *nameTable) set(name string, in *hlo.Instruction) {
	_, s := t.find(name)
	t.setAt(s, name, in)
}

// setAt makes in the instruction named name, whose slot is s.
func (t *nameTable) setAt(s nameSlot, name string, in *hlo.Instruction) {
	if v := t.slots[s.i]; v != 0 {
		t.entries[v&(1<<32-1)-1].in = in
		return
	}
	t.entries = append(t.entries, nameEntry{name, in})
	t.slots[s.i] = s.hash&^(1<<32-1) | uint64(len(t.entries))
	if 2*len(t.entries) > len(t.slots) {
		t.grow()
	}
}

// grow doubles the slots and places the entries again.
func (t *nameTable) grow() {
	t.slots = make([]uint64, 2*len(t.slots))
	mask := len(t.slots) - 1
	for k, e := range t.entries {
		h := maphash.String(t.seed, e.name)
		i := int(h) & mask
		for t.slots[i] != 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = h&^(1<<32-1) | uint64(k+1)
	}
}
