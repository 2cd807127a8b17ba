import { LANGUAGE_TABLE } from "./language-table.ts";

// File extension and file name -> Linguist language names (lower-case), for the languages
// dimension of rules (SESSION-STATE §8), from the table generated from linguist-languages.

const names: ReadonlySet<string> = new Set(LANGUAGE_TABLE.names);
const byExtension: ReadonlyMap<string, readonly string[]> = new Map(Object.entries(LANGUAGE_TABLE.extensions));
const byFilename: ReadonlyMap<string, readonly string[]> = new Map(Object.entries(LANGUAGE_TABLE.filenames));

/** Whether `name` is a Linguist language name in lower case ("typescript", "c++", "markdown"). */
export function isLanguageName(name: string): boolean {
  return names.has(name);
}

/**
 * The languages of a file path: by its exact file name (Dockerfile, Makefile), else by its
 * longest known extension ("a.d.ts" tries ".d.ts", then ".ts"). An extension that is the primary
 * one of some language maps to those languages only (".ts": typescript, not xml); otherwise to
 * every language listing it (".h": c, c++, objective-c). Unknown: none.
 */
export function languagesOfPath(path: string): string[] {
  const base = path.slice(path.lastIndexOf("/") + 1);
  const named = byFilename.get(base);
  if (named !== undefined) return [...named];
  for (let dot = base.indexOf(".", 1); dot > 0; dot = base.indexOf(".", dot + 1)) {
    const hit = byExtension.get(base.slice(dot).toLowerCase());
    if (hit !== undefined) return [...hit];
  }
  return [];
}

/** Whether `ext` (with its dot) is an extension some language lists. */
export function isKnownExtension(ext: string): boolean {
  return byExtension.has(ext.toLowerCase());
}

/** Whether `name` is a file name some language lists (Makefile, Dockerfile). */
export function isKnownFilename(name: string): boolean {
  return byFilename.has(name);
}
