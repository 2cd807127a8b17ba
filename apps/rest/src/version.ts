import packageJson from "../package.json" with { type: "json" };

/** The body of GET /v1/version. */
export interface VersionInfo {
  name: string;
  version: string;
  /** The source commit, when the composition root knows it. */
  commit?: string;
  /** The Node.js version serving the request. */
  node: string;
}

/** Build and version information (spec §Versioning 3); `commit` comes from the composition root. */
export function versionInfo(commit: string | undefined): VersionInfo {
  return { name: "agentq", version: packageJson.version, ...(commit === undefined ? {} : { commit }), node: process.versions.node };
}

/** JSON Schema of VersionInfo, for the OpenAPI document. */
export const VERSION_INFO_SCHEMA = {
  type: "object",
  required: ["name", "version", "node"],
  properties: { name: { type: "string" }, version: { type: "string" }, commit: { type: "string" }, node: { type: "string" } },
} as const;
