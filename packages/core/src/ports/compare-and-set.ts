// The outcome every versioned store's `replace` returns. Every port's general rules: src/ports.ts.

/** The outcome of a compare-and-set write of a mutable record. */
export type ReplaceResult = { kind: "replaced" } | { kind: "conflict" };
