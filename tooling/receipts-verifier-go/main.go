// Command receipts-verifier checks what an agentq server hands out, with the Go checksum
// database's own code: golang.org/x/mod/sumdb/note verifies a checkpoint's signature and
// golang.org/x/mod/sumdb/tlog checks inclusion (CheckRecord) and consistency (CheckTree) proofs.
// It shares no code with agentq; the formats are those of docs/receipts.md.
//
//	receipts-verifier -key VERIFIER_KEY [-key ...] [-origin ORIGIN] receipt FILE
//	receipts-verifier -key VERIFIER_KEY [-key ...] [-origin ORIGIN] consistency FILE
//
// FILE is a message's receipt ({message_id, record, inclusion, checkpoint}) or a consistency
// bundle ({old_checkpoint, new_checkpoint, consistency}). It prints "OK <origin> <tree size>"
// and exits 0, or prints "FAIL <class>: <reason>" and exits with the class's code:
// 2 unreadable, 3 checkpoint_malformed, 4 checkpoint_signature, 5 wrong_origin,
// 6 record_mismatch, 7 proof_failed (1 is a usage error).
//
// Build in GOPATH mode against Debian's golang-golang-x-mod-dev:
//
//	GO111MODULE=off GOPATH=/usr/share/gocode go build -o receipts-verifier .
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

type failure struct {
	class  string
	reason string
}

var exitCodes = map[string]int{"unreadable": 2, "checkpoint_malformed": 3, "checkpoint_signature": 4, "wrong_origin": 5, "record_mismatch": 6, "proof_failed": 7}

func fail(class, format string, args ...interface{}) *failure {
	return &failure{class, fmt.Sprintf(format, args...)}
}

type keyList []string

func (k *keyList) String() string     { return strings.Join(*k, ",") }
func (k *keyList) Set(v string) error { *k = append(*k, v); return nil }

type inclusionProof struct {
	Seq       *int64      `json:"seq"`
	LeafIndex *int64      `json:"leaf_index"`
	TreeSize  *int64      `json:"tree_size"`
	Hashes    []tlog.Hash `json:"hashes"`
}

type receipt struct {
	MessageID  *string         `json:"message_id"`
	Record     *string         `json:"record"`
	Inclusion  *inclusionProof `json:"inclusion"`
	Checkpoint *string         `json:"checkpoint"`
}

type consistencyProof struct {
	From   *int64      `json:"from"`
	To     *int64      `json:"to"`
	Hashes []tlog.Hash `json:"hashes"`
}

type bundle struct {
	OldCheckpoint *string           `json:"old_checkpoint"`
	NewCheckpoint *string           `json:"new_checkpoint"`
	Consistency   *consistencyProof `json:"consistency"`
}

// checkpoint is a C2SP tlog-checkpoint's tree head and the name of the key that signed it.
type checkpoint struct {
	origin  string
	size    int64
	root    tlog.Hash
	keyName string
}

var decimal = regexp.MustCompile(`^(0|[1-9][0-9]*)$`)

// openCheckpoint verifies the note's signature with the trusted keys and reads its three lines.
func openCheckpoint(msg *string, verifiers note.Verifiers) (*checkpoint, *failure) {
	if msg == nil {
		return nil, fail("unreadable", "no checkpoint")
	}
	n, err := note.Open([]byte(*msg), verifiers)
	if err != nil {
		var unverified *note.UnverifiedNoteError
		var invalid *note.InvalidSignatureError
		if errors.As(err, &unverified) || errors.As(err, &invalid) || strings.Contains(err.Error(), "ambiguous key") {
			return nil, fail("checkpoint_signature", "%v", err)
		}
		return nil, fail("checkpoint_malformed", "%v", err)
	}
	text := n.Text
	if !strings.HasSuffix(text, "\n") {
		return nil, fail("checkpoint_malformed", "no final newline")
	}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if len(lines) < 3 || lines[0] == "" || !decimal.MatchString(lines[1]) {
		return nil, fail("checkpoint_malformed", "not a checkpoint")
	}
	for _, extra := range lines[3:] {
		if extra == "" {
			return nil, fail("checkpoint_malformed", "empty extension line")
		}
	}
	size, err := strconv.ParseInt(lines[1], 10, 64)
	if err != nil || size > 1<<53 {
		return nil, fail("checkpoint_malformed", "bad tree size")
	}
	root, err := tlog.ParseHash(lines[2])
	if err != nil {
		return nil, fail("checkpoint_malformed", "bad root hash")
	}
	return &checkpoint{origin: lines[0], size: size, root: root, keyName: n.Sigs[0].Name}, nil
}

func verifyReceipt(data []byte, verifiers note.Verifiers, expectedOrigin string) (*checkpoint, *failure) {
	var r receipt
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fail("unreadable", "%v", err)
	}
	if r.MessageID == nil || r.Record == nil || r.Inclusion == nil || r.Inclusion.Seq == nil || r.Inclusion.LeafIndex == nil || r.Inclusion.TreeSize == nil || r.Inclusion.Hashes == nil {
		return nil, fail("unreadable", "missing fields")
	}
	p := r.Inclusion
	if *p.Seq < 0 || *p.LeafIndex < 0 || *p.TreeSize < 0 {
		return nil, fail("unreadable", "negative position")
	}
	c, f := openCheckpoint(r.Checkpoint, verifiers)
	if f != nil {
		return nil, f
	}
	var record map[string]interface{}
	if err := json.Unmarshal([]byte(*r.Record), &record); err != nil {
		return nil, fail("record_mismatch", "record is not a JSON object: %v", err)
	}
	workspace, ok := record["workspace_id"].(string)
	if !ok {
		return nil, fail("record_mismatch", "record has no workspace_id")
	}
	if c.origin != c.keyName+"/"+workspace || (expectedOrigin != "" && c.origin != expectedOrigin) {
		return nil, fail("wrong_origin", "checkpoint of %q, record of workspace %q", c.origin, workspace)
	}
	seq, _ := record["seq"].(float64)
	if record["activity"] != "message.sent" || record["message_id"] != *r.MessageID || seq != float64(*p.Seq) || *p.LeafIndex != *p.Seq-1 || *p.TreeSize != c.size {
		return nil, fail("record_mismatch", "record or positions do not match the receipt")
	}
	if err := tlog.CheckRecord(tlog.RecordProof(p.Hashes), c.size, c.root, *p.LeafIndex, tlog.RecordHash([]byte(*r.Record))); err != nil {
		return nil, fail("proof_failed", "%v", err)
	}
	return c, nil
}

func verifyConsistency(data []byte, verifiers note.Verifiers, expectedOrigin string) (*checkpoint, *failure) {
	var b bundle
	if err := json.Unmarshal(data, &b); err != nil {
		return nil, fail("unreadable", "%v", err)
	}
	if b.Consistency == nil || b.Consistency.From == nil || b.Consistency.To == nil || b.Consistency.Hashes == nil || *b.Consistency.From < 0 || *b.Consistency.To < 0 {
		return nil, fail("unreadable", "missing fields")
	}
	older, f := openCheckpoint(b.OldCheckpoint, verifiers)
	if f != nil {
		return nil, f
	}
	newer, f := openCheckpoint(b.NewCheckpoint, verifiers)
	if f != nil {
		return nil, f
	}
	if older.origin != newer.origin || !strings.HasPrefix(newer.origin, newer.keyName+"/") || (expectedOrigin != "" && newer.origin != expectedOrigin) {
		return nil, fail("wrong_origin", "checkpoints of %q and %q", older.origin, newer.origin)
	}
	p := b.Consistency
	if *p.From != older.size || *p.To != newer.size {
		return nil, fail("proof_failed", "proof sizes %d..%d, checkpoints %d..%d", *p.From, *p.To, older.size, newer.size)
	}
	if err := tlog.CheckTree(tlog.TreeProof(p.Hashes), newer.size, newer.root, older.size, older.root); err != nil {
		return nil, fail("proof_failed", "%v", err)
	}
	return newer, nil
}

func main() {
	var keys keyList
	flag.Var(&keys, "key", "a trusted verifier key `<name>+<hash>+<base64 key>` (repeat for earlier keys)")
	origin := flag.String("origin", "", "the log's expected origin `<host>/agentq/<workspace id>` (optional)")
	flag.Parse()
	if flag.NArg() != 2 || (flag.Arg(0) != "receipt" && flag.Arg(0) != "consistency") || len(keys) == 0 {
		fmt.Fprintln(os.Stderr, "usage: receipts-verifier -key VERIFIER_KEY [-key ...] [-origin ORIGIN] receipt|consistency FILE")
		os.Exit(1)
	}
	var list []note.Verifier
	for _, k := range keys {
		v, err := note.NewVerifier(k)
		if err != nil {
			fmt.Fprintf(os.Stderr, "bad verifier key %q: %v\n", k, err)
			os.Exit(1)
		}
		list = append(list, v)
	}
	data, err := os.ReadFile(flag.Arg(1))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	verify := verifyReceipt
	if flag.Arg(0) == "consistency" {
		verify = verifyConsistency
	}
	c, f := verify(data, note.VerifierList(list...), *origin)
	if f != nil {
		fmt.Printf("FAIL %s: %s\n", f.class, f.reason)
		os.Exit(exitCodes[f.class])
	}
	fmt.Printf("OK %s %d\n", c.origin, c.size)
}
