import { Type } from "@sinclair/typebox";
import type { MessageTemplate } from "./message-template.ts";

/**
 * The built-in templates, by name. `directive` is fixed by the specification (directive_kind,
 * summary, instructions: strings, all required); `note` and `result` are agentq's own. Every
 * built-in refuses properties it does not name, so a misspelt field is caught at send time.
 */
export const BUILT_IN_TEMPLATES: readonly MessageTemplate[] = [
  {
    name: "directive",
    description: "An instruction from one agent to another: what kind of directive it is, a one-line summary and the full instructions.",
    schema: Type.Object(
      {
        directive_kind: Type.String({ description: "The kind of directive, e.g. `task`, `review`, `question`." }),
        summary: Type.String({ description: "One line saying what is asked." }),
        instructions: Type.String({ description: "The full instructions." }),
      },
      { additionalProperties: false },
    ),
  },
  {
    name: "note",
    description: "A free-form note for the recipient to read: a text and an optional subject.",
    schema: Type.Object(
      {
        subject: Type.Optional(Type.String({ description: "A short subject line." })),
        text: Type.String({ description: "The note itself." }),
      },
      { additionalProperties: false },
    ),
  },
  {
    name: "result",
    description: "The outcome of earlier work (usually a reply to a directive, linked by correlation_id): whether it succeeded, a summary and optional details.",
    schema: Type.Object(
      {
        outcome: Type.Union([Type.Literal("succeeded"), Type.Literal("failed"), Type.Literal("partial")], { description: "How the work ended." }),
        summary: Type.String({ description: "One paragraph about what was done." }),
        details: Type.Optional(Type.String({ description: "Longer details, logs or links." })),
      },
      { additionalProperties: false },
    ),
  },
];

/** The template with that name, or undefined. */
export function findTemplate(name: string): MessageTemplate | undefined {
  return BUILT_IN_TEMPLATES.find((t) => t.name === name);
}

/** The template's JSON Schema as plain JSON (TypeBox's symbol-keyed metadata dropped). */
export function templateJsonSchema(t: MessageTemplate): Record<string, unknown> {
  return JSON.parse(JSON.stringify(t.schema)) as Record<string, unknown>;
}
