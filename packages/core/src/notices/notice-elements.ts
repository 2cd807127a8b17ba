import { Type, type Static, type TSchema } from "@sinclair/typebox";
import { DomainError, malformed } from "../errors.ts";
import { isUlid } from "../ids.ts";
import { ANONYMOUS_LIMITS } from "../rate-limits/anonymous-limits.ts";
import { DMCA_CATEGORY, DSA_CATEGORIES, LOCATION_TYPES, NAMELESS_CATEGORY, type NoticeKind, type NoticeLocation, type NoticeSubmission } from "./notice.ts";
import { assertPlainText } from "./plain-text.ts";

/** Limits of the intake (GET /v1/notices/intake shows them). */
export const NOTICE_LIMITS = {
  /** Characters of an explanation, a work's description, a supplement or a complaint. */
  longTextChars: 10_000,
  /** Characters of a name, signature, address or other short field. */
  shortTextChars: 500,
  /** Characters of a URL location. */
  urlChars: 2_048,
  /** Locations per notice. */
  locations: 20,
  /** Supplements per notice. */
  supplements: 10,
  /** Notices accepted per client address per minute (429 SVC_RATE_LIMITED past it): ANONYMOUS_LIMITS.notice_intake. */
  intakePerAddressPerMinute: ANONYMOUS_LIMITS.notice_intake.limit,
} as const;

const shortText = (description: string) => Type.String({ minLength: 1, maxLength: NOTICE_LIMITS.shortTextChars, description });
const longText = (description: string) => Type.String({ minLength: 1, maxLength: NOTICE_LIMITS.longTextChars, description });

/** One location: an agentq item, or a URL (parsed, never fetched). */
export const LocationSchema = Type.Object(
  {
    type: Type.Union(LOCATION_TYPES.map((t) => Type.Literal(t)), { description: "What the location names." }),
    id: Type.Optional(Type.String({ maxLength: 64, description: "The item's id (message, ai_account, workspace, session_record)." })),
    workspace_id: Type.Optional(Type.String({ maxLength: 64, description: "The workspace holding the item, when known." })),
    name: Type.Optional(Type.String({ maxLength: 200, description: "A name (template; AI account friendly name with workspace_id)." })),
    url: Type.Optional(Type.String({ maxLength: NOTICE_LIMITS.urlChars, description: "An http(s) URL (type url). Parsed, never fetched." })),
  },
  { additionalProperties: false },
);

const NotifierSchema = Type.Object(
  {
    name: Type.Optional(shortText("The notifier's name.")),
    email: Type.Optional(Type.String({ minLength: 3, maxLength: 254, description: "Where the receipt and the decision are mailed." })),
    address: Type.Optional(shortText("A postal address (DMCA contact information).")),
    phone: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: "A telephone number (DMCA contact information)." })),
  },
  { additionalProperties: false },
);

const locations = Type.Array(LocationSchema, { minItems: 1, maxItems: NOTICE_LIMITS.locations, description: "The exact locations of the content: agentq items or URLs." });

/** The JSON Schema of a DSA notice (Art. 16(2)), as GET /v1/notices/intake publishes it. */
export const DSA_NOTICE_SCHEMA = Type.Object(
  {
    kind: Type.Literal("dsa"),
    category: Type.Union(DSA_CATEGORIES.map((c) => Type.Literal(c)), { description: "The kind of illegal content." }),
    explanation: longText("Why the content is illegal (Art. 16(2)(a))."),
    locations,
    notifier: Type.Optional(NotifierSchema),
    good_faith_statement: Type.Literal(true, { description: "I believe in good faith that the information and allegations are accurate and complete (Art. 16(2)(d))." }),
  },
  { additionalProperties: false, description: "notifier.name and notifier.email are required unless category is child_sexual_abuse." },
);

/** The JSON Schema of a DMCA notice (the six elements of 17 U.S.C. 512(c)(3)(A)). */
export const DMCA_NOTICE_SCHEMA = Type.Object(
  {
    kind: Type.Literal("dmca"),
    signature: shortText("(i) The physical or electronic signature of the owner or of a person authorized to act for them."),
    copyrighted_work: longText("(ii) The copyrighted work claimed to be infringed."),
    infringing_material: Type.Optional(longText("(iii) The material claimed to be infringing (its locations go in locations).")),
    locations,
    notifier: NotifierSchema,
    good_faith_statement: Type.Literal(true, { description: "(v) I have a good faith belief that use of the material is not authorized by the copyright owner, its agent, or the law." }),
    accuracy_statement: Type.Literal(true, { description: "(vi) The information is accurate, and under penalty of perjury, I am authorized to act on behalf of the owner." }),
  },
  { additionalProperties: false, description: "(iv) contact information: notifier.name and notifier.email are required; address and phone are welcome." },
);

/**
 * The input of POST /v1/notices: every field of both kinds, all optional but `kind`, so that a
 * missing element is reported by name (details.missing_elements) rather than as a schema error.
 * Unknown fields (an attachment, say) are refused.
 */
export const NOTICE_INPUT_SCHEMA = Type.Object(
  {
    kind: Type.Union([Type.Literal("dsa"), Type.Literal("dmca")], { description: "dsa or dmca." }),
    category: Type.Optional(Type.String({ maxLength: 64, description: "DSA: the category of illegal content." })),
    explanation: Type.Optional(longText("DSA: why the content is illegal.")),
    signature: Type.Optional(shortText("DMCA: signature.")),
    copyrighted_work: Type.Optional(longText("DMCA: the copyrighted work.")),
    infringing_material: Type.Optional(longText("DMCA: the infringing material.")),
    locations: Type.Optional(Type.Array(LocationSchema, { maxItems: NOTICE_LIMITS.locations, description: "The exact locations." })),
    notifier: Type.Optional(NotifierSchema),
    good_faith_statement: Type.Optional(Type.Boolean({ description: "Must be true." })),
    accuracy_statement: Type.Optional(Type.Boolean({ description: "DMCA: must be true." })),
  },
  { additionalProperties: false },
);
/** The input of POST /v1/notices. */
export type NoticeInput = Static<typeof NOTICE_INPUT_SCHEMA>;

/** The JSON Schemas of the kinds, for the intake description. */
export const NOTICE_KIND_SCHEMAS: Readonly<Record<NoticeKind, TSchema>> = { dsa: DSA_NOTICE_SCHEMA, dmca: DMCA_NOTICE_SCHEMA };

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * Checks a submitted notice and returns it as stored: text only, every element of its kind
 * present (a `false` statement counts as missing), each location well formed.
 * @throws DomainError SVC_MALFORMED_REQUEST: details.missing_elements (names of the missing
 *   elements), or details.field for a bad value.
 */
export function parseNoticeSubmission(input: NoticeInput): NoticeSubmission {
  assertPlainText(input, "");
  const notifier = input.notifier ?? {};
  const missing: string[] = [];
  const need = (present: boolean, element: string) => {
    if (!present) missing.push(element);
  };
  let category: string;
  if (input.kind === "dsa") {
    need(input.category !== undefined, "category");
    if (input.category !== undefined && !(DSA_CATEGORIES as readonly string[]).includes(input.category)) throw malformed(`category must be one of ${DSA_CATEGORIES.join(", ")}.`, { field: "category", allowed: [...DSA_CATEGORIES] });
    category = input.category ?? "";
    need(input.explanation !== undefined, "explanation");
    need((input.locations?.length ?? 0) > 0, "locations");
    if (category !== NAMELESS_CATEGORY) {
      need(notifier.name !== undefined, "notifier.name");
      need(notifier.email !== undefined, "notifier.email");
    }
    need(input.good_faith_statement === true, "good_faith_statement");
    if (input.signature !== undefined || input.copyrighted_work !== undefined || input.accuracy_statement !== undefined) throw malformed("signature, copyrighted_work and accuracy_statement belong to DMCA notices.", { field: "kind" });
  } else {
    category = DMCA_CATEGORY;
    need(input.signature !== undefined, "signature");
    need(input.copyrighted_work !== undefined, "copyrighted_work");
    need((input.locations?.length ?? 0) > 0, "locations");
    need(notifier.name !== undefined, "notifier.name");
    need(notifier.email !== undefined, "notifier.email");
    need(input.good_faith_statement === true, "good_faith_statement");
    need(input.accuracy_statement === true, "accuracy_statement");
    if (input.category !== undefined || input.explanation !== undefined) throw malformed("category and explanation belong to DSA notices.", { field: "kind" });
  }
  if (missing.length > 0) throw new DomainError("SVC_MALFORMED_REQUEST", `The notice lacks required elements: ${missing.join(", ")}.`, { missing_elements: missing });
  if (notifier.email !== undefined && !EMAIL.test(notifier.email)) throw malformed("notifier.email is not an email address.", { field: "notifier/email" });
  const parsedLocations = (input.locations ?? []).map((l, i) => checkLocation(l, `locations/${i}`));
  return {
    kind: input.kind,
    category,
    explanation: input.explanation ?? null,
    copyrightedWork: input.copyrighted_work ?? null,
    infringingMaterial: input.infringing_material ?? null,
    signature: input.signature ?? null,
    locations: parsedLocations,
    notifier: {
      name: notifier.name ?? null,
      email: notifier.email ?? null,
      ...(notifier.address === undefined ? {} : { address: notifier.address }),
      ...(notifier.phone === undefined ? {} : { phone: notifier.phone }),
    },
    goodFaithStatement: true,
    accuracyStatement: input.accuracy_statement === true,
  };
}

/** A well-formed location: what it needs for its type; a URL must be http(s) (no data: payloads). */
function checkLocation(l: NoticeLocation, field: string): NoticeLocation {
  const bad = (message: string, sub: string) => malformed(message, { field: `${field}/${sub}` });
  if (l.workspace_id !== undefined && !isUlid(l.workspace_id)) throw bad("workspace_id must be a ULID.", "workspace_id");
  switch (l.type) {
    case "message":
    case "workspace":
    case "session_record":
      if (l.id === undefined || !isUlid(l.id)) throw bad(`A ${l.type} location needs its id (a ULID).`, "id");
      break;
    case "ai_account":
      if (l.id !== undefined ? !isUlid(l.id) : l.name === undefined || l.workspace_id === undefined) throw bad("An ai_account location needs its id (a ULID), or its name with workspace_id.", "id");
      break;
    case "template":
      if (l.name === undefined || l.name.length === 0) throw bad("A template location needs its name.", "name");
      break;
    case "url": {
      let url: URL | null = null;
      try {
        url = l.url === undefined ? null : new URL(l.url);
      } catch {
        url = null;
      }
      if (url === null || (url.protocol !== "https:" && url.protocol !== "http:")) throw bad("A url location needs an http or https URL.", "url");
      break;
    }
  }
  return l;
}
