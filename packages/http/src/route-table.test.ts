import { describe, expect, it } from "vitest";
import { pathParameterNames, RouteTable, toHonoPath } from "./route-table.ts";

describe("RouteTable", () => {
  it("lists the methods of every template matching a path", () => {
    const t = new RouteTable();
    t.add("GET", "/v1/messages/{message_id}");
    t.add("POST", "/v1/messages/get-pending");
    t.add("POST", "/v1/messages/{message_id}/ack");
    expect(t.allowedMethods("/v1/messages/get-pending")).toEqual(["GET", "HEAD", "POST"]);
    expect(t.allowedMethods("/v1/messages/01ABC/ack")).toEqual(["POST"]);
    expect(t.allowedMethods("/v1/messages/01ABC/nack")).toEqual([]);
    expect(t.allowedMethods("/v1/messages/")).toEqual([]);
    expect(t.allowedMethods("/v1/messages")).toEqual([]);
  });

  it("treats template text literally (dots are not wildcards)", () => {
    const t = new RouteTable();
    t.add("GET", "/v1/openapi.json");
    expect(t.allowedMethods("/v1/openapi.json")).toEqual(["GET", "HEAD"]);
    expect(t.allowedMethods("/v1/openapiXjson")).toEqual([]);
  });
});

describe("path templates", () => {
  it("convert {param} to Hono's :param and list the names", () => {
    expect(toHonoPath("/v1/messages/{message_id}/ack")).toBe("/v1/messages/:message_id/ack");
    expect(pathParameterNames("/v1/a/{x}/b/{y_2}")).toEqual(["x", "y_2"]);
  });
});
