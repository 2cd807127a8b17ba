import type { TSchema } from "@sinclair/typebox";

/** A named message template: the JSON Schema a payload must satisfy. */
export interface MessageTemplate {
  /** The template's name, as senders write it in `envelope.template`. */
  name: string;
  /** One line for humans and agents. */
  description: string;
  /** The payload's JSON Schema (a TypeBox schema; checked with Value.Check). */
  schema: TSchema;
}
