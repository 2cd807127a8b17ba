import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";

/** One shell command shown in a ```sh block of the documentation. */
export interface DocumentedCommand {
  /** The file, relative to the repository's root (`README.md`, `docs/guard-rails.md`). */
  file: string;
  /** Which ```sh block of the file (0-based): commands of one block run in one shell, in order. */
  block: number;
  /** The command as a reader would type it: continuation lines joined, the trailing comment dropped, spaces collapsed. */
  text: string;
  /** `text` with every whitespace run (quoted ones too) made one space: how the checks name it. */
  key: string;
}

/** How a command is named in the checks: every whitespace run one space. */
export function commandKey(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/** The documentation whose ```sh blocks must hold only working commands: README.md, docs/*.md and the READMEs of apps/* and packages/*. */
export function documentationFiles(root: string): string[] {
  const inFolder = (folder: string, pick: (name: string) => boolean) =>
    readdirSync(join(root, folder), { withFileTypes: true })
      .filter((e) => pick(e.name))
      .map((e) => join(folder, e.name));
  const readmes = (folder: string) =>
    readdirSync(join(root, folder), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => join(folder, e.name, "README.md"))
      .filter((f) => {
        try {
          readFileSync(join(root, f));
          return true;
        } catch {
          return false;
        }
      });
  return ["README.md", ...inFolder("docs", (n) => n.endsWith(".md")), ...readmes("apps"), ...readmes("packages")].map((f) => relative(root, join(root, f))).sort();
}

/** Every command of every ```sh block of `files` (paths relative to `root`), in document order. */
export function documentedCommands(root: string, files: readonly string[] = documentationFiles(root)): DocumentedCommand[] {
  const out: DocumentedCommand[] = [];
  for (const file of files) {
    const blocks = shBlocks(readFileSync(join(root, file), "utf8"));
    blocks.forEach((lines, block) => {
      for (const text of logicalCommands(lines)) out.push({ file, block, text, key: commandKey(text) });
    });
  }
  return out;
}

// The bodies of the ```sh fences (other languages are examples of output or config, not commands).
function shBlocks(markdown: string): string[][] {
  const blocks: string[][] = [];
  let current: string[] | null = null;
  for (const line of markdown.split("\n")) {
    if (current === null) {
      if (/^```sh\s*$/.test(line)) current = [];
    } else if (/^```\s*$/.test(line)) {
      blocks.push(current);
      current = null;
    } else current.push(line);
  }
  return blocks;
}

/**
 * Joins a block's lines into the commands a shell would read: a line ending in `\` continues, and
 * so does a line inside an open quote; comments (`#` outside quotes, at a word's start) and blank
 * lines are dropped; runs of spaces outside quotes become one.
 */
export function logicalCommands(lines: readonly string[]): string[] {
  const commands: string[] = [];
  let pending = "";
  for (const raw of lines) {
    const joined = pending === "" ? raw : `${pending}\n${raw}`;
    const scan = scanLine(joined);
    if (scan.openQuote) {
      pending = joined;
      continue;
    }
    const code = scan.code.replace(/\s+$/, "");
    if (code.endsWith("\\")) {
      pending = code.slice(0, -1);
      continue;
    }
    pending = "";
    const text = collapseSpaces(code).trim();
    if (text !== "") commands.push(text);
  }
  if (pending.trim() !== "") commands.push(collapseSpaces(pending).trim());
  return commands;
}

// The line up to an unquoted comment, and whether a quote is still open at its end.
function scanLine(line: string): { code: string; openQuote: boolean } {
  let quote: '"' | "'" | null = null;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (quote !== null) {
      if (ch === "\\" && quote === '"') i++;
      else if (ch === quote) quote = null;
    } else if (ch === "\\") i++;
    else if (ch === '"' || ch === "'") quote = ch;
    else if (ch === "#" && (i === 0 || /\s/.test(line[i - 1] ?? ""))) return { code: line.slice(0, i), openQuote: false };
  }
  return { code: line, openQuote: quote !== null };
}

// Collapses whitespace runs outside quotes (so alignment spaces before a comment never matter).
function collapseSpaces(text: string): string {
  let out = "";
  let quote: '"' | "'" | null = null;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] ?? "";
    if (quote !== null) {
      out += ch;
      if (ch === quote) quote = null;
      continue;
    }
    if (ch === '"' || ch === "'") quote = ch;
    if (/\s/.test(ch)) {
      if (!out.endsWith(" ")) out += " ";
      continue;
    }
    out += ch;
  }
  return out;
}
