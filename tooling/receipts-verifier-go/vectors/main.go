// Command vectors prints the test vectors of agentq's transparency log code
// (packages/core/src/audit/transparency-log/tlog-vectors.json), computed with Go's own
// golang.org/x/mod/sumdb/tlog and sumdb/note, so the TypeScript port is tested against them.
//
// Build in GOPATH mode against Debian's golang-golang-x-mod-dev:
//
//	GO111MODULE=off GOPATH=/usr/share/gocode go run . > ../../../packages/core/src/audit/transparency-log/tlog-vectors.json
package main

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

type hashes []tlog.Hash

func (h hashes) ReadHashes(indexes []int64) ([]tlog.Hash, error) {
	out := make([]tlog.Hash, len(indexes))
	for i, x := range indexes {
		out[i] = h[x]
	}
	return out, nil
}

type recordProof struct {
	T     int64       `json:"t"`
	N     int64       `json:"n"`
	Proof []tlog.Hash `json:"proof"`
}

type treeProof struct {
	T     int64       `json:"t"`
	N     int64       `json:"n"`
	Proof []tlog.Hash `json:"proof"`
}

type noteVector struct {
	Name        string `json:"name"`
	SeedBase64  string `json:"seed"`
	VerifierKey string `json:"verifier_key"`
	Text        string `json:"text"`
	Signed      string `json:"signed"`
}

type vectors struct {
	Leaves        string        `json:"leaves"`
	Roots         []tlog.Hash   `json:"roots"`
	StoredCounts  []int64       `json:"stored_counts"`
	StoredIndexes [][2]int64    `json:"stored_indexes"`
	RecordProofs  []recordProof `json:"record_proofs"`
	TreeProofs    []treeProof   `json:"tree_proofs"`
	Notes         []noteVector  `json:"notes"`
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}

func main() {
	const size = 70
	v := vectors{Leaves: "leaf i is the UTF-8 of \"leaf <i>\\n\"; roots[i] is the root of the first i+1 leaves"}
	var stored hashes
	for n := int64(0); n < size; n++ {
		hs, err := tlog.StoredHashes(n, []byte(fmt.Sprintf("leaf %d\n", n)), stored)
		must(err)
		stored = append(stored, hs...)
		root, err := tlog.TreeHash(n+1, stored)
		must(err)
		v.Roots = append(v.Roots, root)
		v.StoredCounts = append(v.StoredCounts, tlog.StoredHashCount(n+1))
	}
	for level := 0; level < 5; level++ {
		for n := int64(0); n < 9; n++ {
			v.StoredIndexes = append(v.StoredIndexes, [2]int64{int64(level)*100 + n, tlog.StoredHashIndex(level, n)})
		}
	}
	for t := int64(1); t <= 16; t++ {
		for n := int64(0); n < t; n++ {
			p, err := tlog.ProveRecord(t, n, stored)
			must(err)
			v.RecordProofs = append(v.RecordProofs, recordProof{t, n, p})
		}
		for n := int64(1); n <= t; n++ {
			p, err := tlog.ProveTree(t, n, stored)
			must(err)
			v.TreeProofs = append(v.TreeProofs, treeProof{t, n, p})
		}
	}
	for _, t := range []int64{64, 65, 69, 70} {
		for _, n := range []int64{0, 31, 33, 63, t - 1} {
			p, err := tlog.ProveRecord(t, n, stored)
			must(err)
			v.RecordProofs = append(v.RecordProofs, recordProof{t, n, p})
		}
		for _, n := range []int64{1, 21, 32, 63, t} {
			p, err := tlog.ProveTree(t, n, stored)
			must(err)
			v.TreeProofs = append(v.TreeProofs, treeProof{t, n, p})
		}
	}
	for i, name := range []string{"example.com/agentq", "127.0.0.1:8080/agentq"} {
		seed := make([]byte, ed25519.SeedSize)
		for j := range seed {
			seed[j] = byte(i*64 + j)
		}
		pub := ed25519.NewKeyFromSeed(seed).Public().(ed25519.PublicKey)
		vkey, err := note.NewEd25519VerifierKey(name, pub)
		must(err)
		hash := strings.Split(vkey, "+")[1]
		signer, err := note.NewSigner("PRIVATE+KEY+" + name + "+" + hash + "+" + base64.StdEncoding.EncodeToString(append([]byte{1}, seed...)))
		must(err)
		text := fmt.Sprintf("%s/01J0000000000000000000000%d\n%d\n%s\n", name, i, size, v.Roots[size-1])
		signed, err := note.Sign(&note.Note{Text: text}, signer)
		must(err)
		v.Notes = append(v.Notes, noteVector{name, base64.StdEncoding.EncodeToString(seed), vkey, text, string(signed)})
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", " ")
	must(enc.Encode(v))
}
