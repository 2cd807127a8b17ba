// `node --import ./register-fs-shim.mjs`: modules of @modelcontextprotocol/conformance that import
// "fs" get fs-glob-shim.mjs (node:fs plus globSync on Node 20). Nothing else is touched.
import { register } from "node:module";

const shim = new URL("./fs-glob-shim.mjs", import.meta.url).href;
const hooks = `
export async function resolve(specifier, context, next) {
  if ((specifier === "fs" || specifier === "node:fs") && (context.parentURL ?? "").includes("@modelcontextprotocol/conformance")) return { url: ${JSON.stringify(shim)}, shortCircuit: true };
  return next(specifier, context);
}`;
register(`data:text/javascript,${encodeURIComponent(hooks)}`, import.meta.url);
