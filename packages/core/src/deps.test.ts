import { describe, expect, it } from "vitest";
import { buildMcpConfig } from "./access/mcp-config.ts";
import { requirePublicBaseUrl } from "./deps.ts";
import { isDomainError } from "./errors.ts";

describe("the service's public base URL", () => {
  it("is the one the composition root set; the core invents none and says so when there is none (a programming error, not an SVC_ code)", () => {
    expect(requirePublicBaseUrl({ publicBaseUrl: "https://queue.example.com" })).toBe("https://queue.example.com");
    let thrown: unknown;
    try {
      requirePublicBaseUrl({});
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(Error);
    expect(isDomainError(thrown)).toBe(false);
  });

  it("names the MCP endpoint of the given base URL only", () => {
    expect(buildMcpConfig("https://queue.example.com/", "agq_op_x").mcpServers["agentq"]?.url).toBe("https://queue.example.com/mcp");
  });
});
