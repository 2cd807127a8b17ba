import type { Person } from "../access/model.ts";
import type { CoreDeps } from "../deps.ts";
import type { Stores } from "../ports.ts";
import { hashPersonToken, newPersonToken, PERSON_TOKEN_KINDS, type PersonToken, type PersonTokenPurpose } from "./person-tokens.ts";

/**
 * Issues a single-use token of `purpose` to `person` on `stores` (the caller's transaction, or the
 * pool): stores its keyed hash, valid for the purpose's lifetime from `now`, and returns the token
 * (to mail, never stored) with its record.
 */
export async function issuePersonToken(deps: Pick<CoreDeps, "ids" | "secrets">, stores: Pick<Stores, "personTokens">, person: Pick<Person, "id" | "workspaceId">, purpose: PersonTokenPurpose, now: Date): Promise<{ token: string; record: PersonToken }> {
  const token = newPersonToken(purpose);
  const record: PersonToken = {
    id: deps.ids.next(),
    workspaceId: person.workspaceId,
    personId: person.id,
    purpose,
    tokenHash: hashPersonToken(deps.secrets.pepper, token),
    createdAt: now,
    expiresAt: new Date(now.getTime() + PERSON_TOKEN_KINDS[purpose].lifetimeMs),
    usedAt: null,
  };
  await stores.personTokens.insert({ token: record });
  return { token, record };
}
