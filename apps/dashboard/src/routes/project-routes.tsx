/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import type { Hono } from "hono";
import type { DashboardEnv } from "../dashboard-env.ts";
import type { PageKit } from "../page-kit.tsx";
import { ProjectPage, ProjectsPage, type BacklogItemWire, type BuildSessionWire, type DecisionWire, type ProjectWire } from "../pages/projects-page.tsx";
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
}
