// node:fs with globSync for Node 20, whose fs lacks it (added in Node 22). The MCP conformance
// suite imports { globSync } from "fs"; it is given this module instead (register-fs-shim.mjs).
// On Node 22 and later the real globSync is used.
import * as fs from "node:fs";
import path from "node:path";

export * from "node:fs";
export default fs.default ?? fs;

/** fs.globSync where Node has it; else a small walk that matches `*` and `**` segments. */
export function globSync(pattern, options = {}) {
  if (typeof fs.globSync === "function") return fs.globSync(pattern, options);
  const cwd = options.cwd ?? process.cwd();
  const parts = String(pattern).split("/");
  const toRegex = (seg) => new RegExp(`^${seg.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, "[^/]*").replace(/\?/g, "[^/]")}$`);
  const out = [];
  const walk = (dir, i, rel) => {
    if (i === parts.length) return void out.push(rel);
    const seg = parts[i];
    if (seg === "**") {
      walk(dir, i + 1, rel);
      for (const e of safeList(dir)) if (e.isDirectory()) walk(path.join(dir, e.name), i, rel === "" ? e.name : `${rel}/${e.name}`);
      return;
    }
    const re = toRegex(seg);
    for (const e of safeList(dir)) if (re.test(e.name)) walk(path.join(dir, e.name), i + 1, rel === "" ? e.name : `${rel}/${e.name}`);
  };
  const safeList = (dir) => {
    try {
      return fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return [];
    }
  };
  walk(path.isAbsolute(pattern) ? "/" : cwd, path.isAbsolute(pattern) ? 1 : 0, path.isAbsolute(pattern) ? "/" : "");
  return [...new Set(out)];
}
