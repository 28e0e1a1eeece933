package parser

import (
	"hash/maphash"
	"math/bits"

	"octet/hlo"
)

// nameTable maps instruction names to instructions: a hash table of open addressing over a list of entries
// in insertion order.
//
// Its slots outgrow the processor's caches in a large module, and nearly every name is defined once and
// then used by instructions close after it. So a filter, one bit per hash and small enough to stay in
// cache, tells most new names to be new without a look at the slots; the entries made last are looked
// through before the slots; and they are placed in the slots together, where the memory accesses of one
// overlap those of the others.
type nameTable struct {
	seed maphash.Seed
	// slots hold, for each occupied slot, the lower 32 bits of the name's hash and its entry's index plus
	// one; 0 is an empty slot. At most three slots in four are occupied.
	slots   []uint64
	entries []nameEntry
	// placed is how many of the entries are in the slots; the others are the last made.
	placed int
	// seen has the bit of the hash of every entry's name set; len(seen)*64 is a power of two.
	seen []uint64
}

type nameEntry struct {
	name string
	in   *hlo.Instruction
	hash uint64
}

// maxUnplaced bounds the entries not yet in the slots, which every look-up goes through.
const maxUnplaced = 16

// nameSlot is where a name is, or would be inserted, in a nameTable; valid until a name is inserted.
type nameSlot struct {
	hash uint64
	// slot is the slot that holds the name or would, or -1; entry is the unplaced entry that holds the
	// name, or -1.
	slot, entry int
}

// newNameTable returns a table sized for n names.
func newNameTable(n int) *nameTable {
	t := &nameTable{seed: maphash.MakeSeed(), entries: make([]nameEntry, 0, n)}
	t.size(n)
	return t
}

// size makes the slots and the filter for n entries, empty.
func (t *nameTable) size(n int) {
	n = max(n, 16)
	t.slots = make([]uint64, n+n/2)
	// At least 8 bits a name: about one new name in 8 has its bit set already.
	bits := 64
	for bits < 8*n {
		bits *= 2
	}
	t.seen = make([]uint64, bits/64)
}

// home returns the slot where the search for a name of hash h starts.
func (t *nameTable) home(h uint64) int {
	i, _ := bits.Mul64(h, uint64(len(t.slots)))
	return int(i)
}

// next returns the slot after i.
func (t *nameTable) next(i int) int {
	if i++; i == len(t.slots) {
		return 0
	}
	return i
}

func (t *nameTable) seenBit(h uint64) (int, uint64) {
	i := int(h) & (64*len(t.seen) - 1)
	return i / 64, 1 << (i % 64)
}

// find returns the instruction named name (nil when none is) and its slot.
func (t *nameTable) find(name string) (*hlo.Instruction, nameSlot) {
	h := maphash.String(t.seed, name)
	for k := len(t.entries) - 1; k >= t.placed; k-- {
		if e := &t.entries[k]; e.hash == h && e.name == name {
			return e.in, nameSlot{h, -1, k}
		}
	}
	if w, b := t.seenBit(h); t.seen[w]&b == 0 {
		return nil, nameSlot{h, -1, -1}
	}
	t.place()
	tag := h << 32
	for i := t.home(h); ; i = t.next(i) {
		s := t.slots[i]
		if s == 0 {
			return nil, nameSlot{h, i, -1}
		}
		if s&^(1<<32-1) == tag {
			if e := &t.entries[s&(1<<32-1)-1]; e.name == name {
				return e.in, nameSlot{h, i, -1}
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

// setAt makes in the instruction named name, whose slot s was found with no name inserted since.
func (t *nameTable) setAt(s nameSlot, name string, in *hlo.Instruction) {
	if s.entry >= 0 {
		t.entries[s.entry].in = in
		return
	}
	if s.slot >= 0 {
		if v := t.slots[s.slot]; v != 0 {
			t.entries[v&(1<<32-1)-1].in = in
			return
		}
	}
	t.entries = append(t.entries, nameEntry{name, in, s.hash})
	w, b := t.seenBit(s.hash)
	t.seen[w] |= b
	switch {
	case 4*len(t.entries) > 3*len(t.slots):
		t.size(2 * len(t.entries))
		for k := range t.entries {
			w, b := t.seenBit(t.entries[k].hash)
			t.seen[w] |= b
		}
		t.placed = 0
		t.place()
	case s.slot >= 0:
		// The slot was found with every other entry placed.
		t.slots[s.slot] = s.hash<<32 | uint64(len(t.entries))
		t.placed++
	case len(t.entries)-t.placed >= maxUnplaced:
		t.place()
	}
}

// place puts the entries not in the slots there.
func (t *nameTable) place() {
	for k := t.placed; k < len(t.entries); k++ {
		h := t.entries[k].hash
		i := t.home(h)
		for t.slots[i] != 0 {
			i = t.next(i)
		}
		t.slots[i] = h<<32 | uint64(k+1)
	}
	t.placed = len(t.entries)
}
