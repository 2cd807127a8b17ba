// Builds the language table (languages.ts) from Linguist's data: what the generated
// language-table.ts holds, and what its test compares it with.

/** A language as linguist-languages describes it (the fields the table reads). */
export interface LinguistLanguage {
  name: string;
  extensions?: readonly string[];
  filenames?: readonly string[];
}

/** Lower-case language names, and the languages of each extension and file name. */
export interface LanguageTable {
  names: string[];
  extensions: Record<string, string[]>;
  filenames: Record<string, string[]>;
}

function push(map: Map<string, string[]>, key: string, name: string): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [name]);
  else if (!list.includes(name)) list.push(name);
}

const sorted = (map: Map<string, string[]>): Record<string, string[]> => Object.fromEntries([...map.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, v]) => [k, [...v].sort()]));

/**
 * The table: an extension that is the primary (first) one of some languages maps to those only
 * (".ts": typescript, not xml), otherwise to every language listing it (".h": c, c++,
 * objective-c); extensions lower-case; file names as Linguist spells them.
 */
export function buildLanguageTable(languages: Iterable<LinguistLanguage>): LanguageTable {
  const primary = new Map<string, string[]>();
  const any = new Map<string, string[]>();
  const filenames = new Map<string, string[]>();
  const names = new Set<string>();
  for (const lang of languages) {
    const name = lang.name.toLowerCase();
    names.add(name);
    (lang.extensions ?? []).forEach((ext, i) => {
      if (i === 0) push(primary, ext.toLowerCase(), name);
      push(any, ext.toLowerCase(), name);
    });
    for (const f of lang.filenames ?? []) push(filenames, f, name);
  }
  const extensions = new Map<string, string[]>();
  for (const [ext, list] of any) extensions.set(ext, primary.get(ext) ?? list);
  return { names: [...names].sort(), extensions: sorted(extensions), filenames: sorted(filenames) };
}

/** The TypeScript source of language-table.ts. */
export function renderLanguageTable(table: LanguageTable, version: string): string {
  return `// Generated from linguist-languages ${version} by packages/core/scripts/render-language-table.ts: do not edit.
// (A table of plain data loads in a moment; the package's 800 modules would slow every start.)
import type { LanguageTable } from "./language-table-build.ts";

export const LANGUAGE_TABLE: LanguageTable = ${JSON.stringify(table)};
`;
}
