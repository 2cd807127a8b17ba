import type { NoticeStore } from "../ports.ts";
import type { NoticeItem, NoticeLocation } from "./notice.ts";

const ULID = "[0-9A-HJKMNP-TV-Z]{26}";
const URL_ITEMS: readonly { pattern: RegExp; type: "message" | "ai_account" }[] = [
  { pattern: new RegExp(`^/v1/messages/(${ULID})/?$`), type: "message" },
  { pattern: new RegExp(`^/v1/ai-accounts/(${ULID})/?$`), type: "ai_account" },
];

/**
 * The agentq location a URL stands for, when it is one of this service's own item URLs
 * (`{PUBLIC_BASE_URL}/v1/messages/{id}`, `/v1/ai-accounts/{id}`); else null. The URL is parsed,
 * never fetched.
 */
export function locationOfUrl(url: string, publicBaseUrl: string): NoticeLocation | null {
  let parsed: URL;
  let base: URL;
  try {
    parsed = new URL(url);
    base = new URL(publicBaseUrl);
  } catch {
    return null;
  }
  if (parsed.origin !== base.origin) return null;
  for (const { pattern, type } of URL_ITEMS) {
    const id = pattern.exec(parsed.pathname)?.[1];
    if (id !== undefined) return { type, id };
  }
  return null;
}

/**
 * Resolves a notice's locations to agentq items. `cheapOnly` (the public intake) resolves only
 * locations that name their workspace (a workspace, or any item with workspace_id): one indexed
 * read each, so the intake's cost and timing do not depend on what exists elsewhere. The
 * operator's review resolves them all. Templates are built in (no workspace holds them) and
 * other URLs name nothing of ours: they stay unresolved for the operator to judge.
 */
export async function resolveItems(notices: NoticeStore, locations: readonly NoticeLocation[], p: { publicBaseUrl: string; cheapOnly: boolean }): Promise<NoticeItem[]> {
  const items: NoticeItem[] = [];
  for (const location of locations) {
    const target = location.type === "url" && location.url !== undefined ? locationOfUrl(location.url, p.publicBaseUrl) : location.type === "template" ? null : location;
    const named = target !== null && (target.type === "workspace" || target.workspace_id !== undefined);
    const resolved = target === null || (p.cheapOnly && !named) ? null : await notices.locate({ location: target });
    items.push({ location, resolved });
  }
  return items;
}

/** The workspace the resolved items belong to (the first item's), or null when none resolved. */
export function affectedWorkspaceOf(items: readonly NoticeItem[]): string | null {
  return items.find((i) => i.resolved !== null)?.resolved?.workspaceId ?? null;
}
