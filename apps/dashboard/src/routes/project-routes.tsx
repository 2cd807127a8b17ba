/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import { notFound } from "@agentq/core";
import type { Hono } from "hono";
import type { DashboardEnv } from "../dashboard-env.ts";
import type { PageKit } from "../page-kit.tsx";
import { ProjectPage, ProjectsPage, type BacklogItemWire, type BuildSessionWire, type DecisionWire, type ProjectWire } from "../pages/projects-page.tsx";
import { RecordPage } from "../pages/record-page.tsx";
import type { Page } from "../wire.ts";

/** The session-state records, read-only: projects, and one project's sessions, decisions and backlog. */
export function registerProjectRoutes(app: Hono<DashboardEnv>, kit: PageKit): void {
  app.get("/projects", async (c) => {
    const query = { cursor: c.req.query("cursor") || undefined };
    const projects = await kit.run<Page<ProjectWire>>(c, { name: "list_projects", input: { ...query } });
    return kit.page(c, { title: "Projects", current: "projects" }, <ProjectsPage projects={projects} query={query} />);
  });
  app.get("/projects/:id", async (c) => {
    const projectId = c.req.param("id");
    const project = await kit.run<ProjectWire>(c, { name: "get_project", input: { project_id: projectId } });
    const [sessions, decisions, backlog, counts] = await Promise.all([
      kit.run<Page<BuildSessionWire>>(c, { name: "search_build_sessions", input: { project_id: project.id, limit: 20 } }),
      kit.run<Page<DecisionWire>>(c, { name: "list_decisions", input: { project_id: project.id, limit: 20 } }),
      kit.run<Page<BacklogItemWire>>(c, { name: "search_backlog", input: { project_id: project.id, limit: 50 } }),
      kit.run<Record<string, number>>(c, { name: "count_backlog_by_status", input: { project_id: project.id } }),
    ]);
    return kit.page(c, { title: project.name, current: "projects" }, <ProjectPage project={project} sessions={sessions.items} decisions={decisions.items} backlog={backlog.items} counts={counts} />);
  });
  // A record of the project in full: its text, rationale, closing notes, events.
  for (const [path, operation, param, kind] of [
    ["decisions", "get_decision", "decision_id", "Decision"],
    ["backlog", "get_backlog_item", "backlog_item_id", "Backlog item"],
    ["sessions", "get_build_session", "session_id", "Build session"],
  ] as const) {
    app.get(`/projects/:id/${path}/:record`, async (c) => {
      const projectId = c.req.param("id");
      const record = await kit.run<Record<string, unknown>>(c, { name: operation, input: { [param]: c.req.param("record") } });
      // Another project's record under this project's address does not exist here.
      if (record.project_id !== projectId) throw notFound(kind);
      const project = await kit.run<ProjectWire>(c, { name: "get_project", input: { project_id: projectId } });
      return kit.page(c, { title: kind, current: "projects" }, <RecordPage kind={kind} record={record} back={{ href: `/projects/${projectId}`, label: project.name }} />);
    });
  }
}
