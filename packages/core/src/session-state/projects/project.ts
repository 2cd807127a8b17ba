import type { CreatedBy } from "../conventions/record-event.ts";

// Projects (SESSION-STATE §2): the shapes the core and its stores share.

/** Project states (SESSION-STATE §2). */
export const PROJECT_STATES = ["active", "archived"] as const;
/** A project state. */
export type ProjectState = (typeof PROJECT_STATES)[number];

/** A project's settings as ISO 8601 durations and counts (SESSION-STATE §2; defaults in `DEFAULT_PROJECT_SETTINGS`). */
export interface ProjectSettings {
  backlog_stale_after: string;
  backlog_in_progress_stale_after: string;
  session_silence_after: string;
  candidate_min_sessions: number;
}

/** Settings of a project that names none. */
export const DEFAULT_PROJECT_SETTINGS: Readonly<ProjectSettings> = {
  backlog_stale_after: "P30D",
  backlog_in_progress_stale_after: "P7D",
  session_silence_after: "PT30M",
  candidate_min_sessions: 2,
};

/** A project: the unit session-state records belong to. */
export interface Project {
  workspaceId: string;
  id: string;
  name: string;
  /** Unique in the workspace, archived projects included. */
  slug: string;
  description: string;
  repositoryUrl: string | null;
  attributes: Record<string, string>;
  settings: ProjectSettings;
  state: ProjectState;
  /** At most one project of a workspace is the default. */
  isDefault: boolean;
  archivedAt: Date | null;
  version: number;
  createdAt: Date;
  updatedAt: Date;
  createdBy: CreatedBy;
}

/** The fields PATCH /projects/{id} may change. */
export interface ProjectChanges {
  name?: string;
  description?: string;
  attributes?: Record<string, string>;
  settings?: ProjectSettings;
}
