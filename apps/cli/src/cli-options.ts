// Options and parsers that several commands share, worded once.

/** Collects a repeatable option's values (commander's custom parser). */
export const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

/** --project of a command that writes into a project (the service picks the default). */
export const PROJECT_OPTION = ["--project <project_id>", "project (default: the credential's, else the workspace's default)"] as const;

/** --session of a command on one's own build session (required: else AGENTQ_SESSION_ID). */
export const SESSION_OPTION = ["--session <id>", "the build session (default AGENTQ_SESSION_ID)"] as const;
