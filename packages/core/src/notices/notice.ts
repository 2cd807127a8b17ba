/**
 * The notice model (DESIGN §2b "Notices"): DSA notices (EU Digital Services Act, Art. 16) and
 * DMCA notices (17 U.S.C. 512(c)(3)), their states and transitions, the items they locate, the
 * measures a decision applies and the counter-notice that contests it.
 */

/** The kinds of notice the intake accepts. */
export const NOTICE_KINDS = ["dsa", "dmca"] as const;
/** A notice kind. */
export type NoticeKind = (typeof NOTICE_KINDS)[number];

/** Notice states (DESIGN §2b). */
export const NOTICE_STATES = ["received", "under_review", "needs_information", "action_taken", "no_action", "dismissed", "contested", "restored", "upheld", "withdrawn"] as const;
/** A notice state. */
export type NoticeState = (typeof NOTICE_STATES)[number];

/**
 * The transitions, exactly the table of DESIGN §2b: received -> under_review -> needs_information
 * | action_taken | no_action | dismissed; action_taken -> contested -> restored | upheld;
 * withdrawn from any open state. needs_information returns to under_review (the notifier's
 * supplement or the operator's review) and may be decided from there.
 */
export const NOTICE_TRANSITIONS: Readonly<Record<NoticeState, readonly NoticeState[]>> = {
  received: ["under_review", "withdrawn"],
  under_review: ["needs_information", "action_taken", "no_action", "dismissed", "withdrawn"],
  needs_information: ["under_review", "action_taken", "no_action", "dismissed", "withdrawn"],
  action_taken: ["contested", "withdrawn"],
  contested: ["restored", "upheld", "withdrawn"],
  no_action: [],
  dismissed: [],
  restored: [],
  upheld: [],
  withdrawn: [],
};

/** Open states: those the notifier may still withdraw from (every state with a way out). */
export const OPEN_NOTICE_STATES: readonly NoticeState[] = NOTICE_STATES.filter((s) => NOTICE_TRANSITIONS[s].includes("withdrawn"));

/** True when the table allows `from` -> `to`. */
export function canTransition(from: NoticeState, to: NoticeState): boolean {
  return NOTICE_TRANSITIONS[from].includes(to);
}

/** DSA categories of illegal content a notifier picks from. */
export const DSA_CATEGORIES = [
  "child_sexual_abuse",
  "terrorist_content",
  "illegal_hate_speech",
  "intellectual_property",
  "privacy_and_data_protection",
  "scams_and_fraud",
  "illegal_products",
  "non_consensual_content",
  "violence_and_threats",
  "other_illegal_content",
] as const;
/** A DSA category. */
export type DsaCategory = (typeof DSA_CATEGORIES)[number];
/** The category of every DMCA notice. */
export const DMCA_CATEGORY = "copyright";
/** The category whose DSA notices need no notifier name or email (Art. 16(2)(c)). */
export const NAMELESS_CATEGORY: DsaCategory = "child_sexual_abuse";

/** The kinds of agentq item a location names (a URL is parsed, never fetched). */
export const LOCATION_TYPES = ["message", "ai_account", "template", "workspace", "session_record", "url"] as const;
/** A location type. */
export type LocationType = (typeof LOCATION_TYPES)[number];

/** A location as the notifier gave it. */
export interface NoticeLocation {
  type: LocationType;
  id?: string;
  workspace_id?: string;
  name?: string;
  url?: string;
}

/**
 * A location as the operator's review resolved it: the agentq item it names, when one exists
 * (`workspaceId` and `itemType`/`itemId`; for a message also its sender), or null. Never shown to the notifier or the public.
 */
export interface NoticeItem {
  location: NoticeLocation;
  resolved: { workspaceId: string; itemType: "message" | "ai_account" | "workspace" | "session_record"; itemId: string; senderId?: string } | null;
}

/** The notifier's contact details. */
export interface NotifierContact {
  name: string | null;
  email: string | null;
  address?: string;
  phone?: string;
}

/**
 * What the notifier submitted (the kind's elements), kept as sent. DSA: category, explanation,
 * locations, notifier, good_faith_statement. DMCA: the six elements of 512(c)(3): signature,
 * copyrighted_work, locations (with infringing_material), notifier, good_faith_statement,
 * accuracy_statement.
 */
export interface NoticeSubmission {
  kind: NoticeKind;
  category: string;
  explanation: string | null;
  copyrightedWork: string | null;
  infringingMaterial: string | null;
  signature: string | null;
  locations: NoticeLocation[];
  notifier: NotifierContact;
  goodFaithStatement: boolean;
  accuracyStatement: boolean;
}

/** The actions a decision names (`pnpm admin notices decide --action`). */
export const NOTICE_ACTIONS = ["withhold_message", "freeze_account", "freeze_workspace", "none"] as const;
/** A decision's action. */
export type NoticeAction = (typeof NOTICE_ACTIONS)[number];

/** A measure a decision applied, and what it replaced (so a restoration puts exactly that back). */
export interface NoticeMeasure {
  type: "message_withheld" | "account_frozen" | "workspace_frozen";
  workspaceId: string;
  itemId: string;
  appliedAt: Date;
  liftedAt: Date | null;
}

/** The operator's decision. */
export interface NoticeDecision {
  outcome: "action_taken" | "no_action" | "dismissed";
  action: NoticeAction;
  reason: string;
  decidedAt: Date;
}

/** The counter-notice (DMCA 512(g)(3)) or complaint (DSA Art. 20) of the affected workspace. */
export interface CounterNotice {
  filedAt: Date;
  /** The person (owner) who filed it. */
  filedBy: string;
  /** The elements as filed (DMCA: signature, name, address, phone, mistake_statement, jurisdiction_consent; DSA: explanation). */
  elements: Record<string, string | boolean>;
}

/** A step of the notice's history (kept on the notice; shown to the operator). */
export interface NoticeEvent {
  at: Date;
  activity: string;
  by: "notifier" | "operator" | "owner" | "system";
  text: string | null;
}

/** A notice as stored. */
export interface Notice {
  id: string;
  kind: NoticeKind;
  state: NoticeState;
  category: string;
  /** Keyed hash (HMAC with the server pepper) of the notifier's status token. */
  statusTokenHash: string;
  submission: NoticeSubmission;
  supplements: { at: Date; text: string }[];
  informationRequests: { at: Date; text: string }[];
  items: NoticeItem[];
  /** The workspace the located items belong to, set by the review; null until then or when none matched. */
  affectedWorkspaceId: string | null;
  decision: NoticeDecision | null;
  measures: NoticeMeasure[];
  counterNotice: CounterNotice | null;
  /** DMCA after a counter-notice: the window in which the measure is lifted (10 to 14 business days). */
  restoration: { earliestAt: Date; latestAt: Date } | null;
  /** A court action the notifier reported (DMCA 512(g)(2)(C)): no automatic restoration then. */
  courtAction: { recordedAt: Date; reference: string } | null;
  /** When the affected workspace was told (its audit view and GET /v1/notices show the notice from then on). */
  disclosedAt: Date | null;
  events: NoticeEvent[];
  receivedAt: Date;
  updatedAt: Date;
  version: number;
}
