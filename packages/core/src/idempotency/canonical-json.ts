/**
 * Canonical JSON: the serialization used wherever bytes must not depend on key order (request
 * fingerprints, audit-row hashes, cursor filters). Object keys are sorted by UTF-16 code unit,
 * no whitespace is emitted, `undefined` properties are dropped (as JSON.stringify does) and
 * array order is kept. Dates serialize as their ISO string. Non-finite numbers become null,
 * as in JSON.stringify.
 */
export function canonicalJson(value: unknown): string {
  return serialize(value) ?? "null";
}

function serialize(value: unknown): string | undefined {
  if (value === null) return "null";
  if (value instanceof Date) return JSON.stringify(value.toISOString());
  switch (typeof value) {
    case "string":
    case "boolean":
      return JSON.stringify(value);
    case "number":
      return Number.isFinite(value) ? JSON.stringify(value) : "null";
    case "bigint":
      return value.toString();
    case "undefined":
    case "function":
    case "symbol":
      return undefined;
    case "object": {
      if (Array.isArray(value)) return `[${value.map((v) => serialize(v) ?? "null").join(",")}]`;
      const keys = Object.keys(value).sort();
      const parts: string[] = [];
      for (const key of keys) {
        const v = serialize((value as Record<string, unknown>)[key]);
        if (v !== undefined) parts.push(`${JSON.stringify(key)}:${v}`);
      }
      return `{${parts.join(",")}}`;
    }
  }
  return undefined;
}
