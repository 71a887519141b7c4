// Pages the scan tool with the official TypeScript MCP SDK until it says it
// is complete, then makes the other calls given, printing one JSON line per
// call (as sdkclient.mjs does). Environment: IRENEO_SDK, MODE (http: URL,
// TOKEN; stdio: CMD, ARGS, ENV), SCAN (scan's arguments, without cursor),
// CALLS (JSON list of {name, arguments}).
import { pathToFileURL } from "node:url";
import path from "node:path";

const sdk = process.env.IRENEO_SDK;
const load = (p) => import(pathToFileURL(path.join(sdk, "dist/esm", p)).href);
const { Client } = await load("client/index.js");

let transport;
if (process.env.MODE === "http") {
  const { StreamableHTTPClientTransport } = await load("client/streamableHttp.js");
  transport = new StreamableHTTPClientTransport(new URL(process.env.URL), {
    requestInit: { headers: { Authorization: `Bearer ${process.env.TOKEN}` } },
  });
} else {
  const { StdioClientTransport } = await load("client/stdio.js");
  transport = new StdioClientTransport({
    command: process.env.CMD,
    args: JSON.parse(process.env.ARGS),
    env: JSON.parse(process.env.ENV),
    stderr: "inherit",
  });
}
const client = new Client({ name: "ireneo-sdk-scan", version: "1" });
await client.connect(transport);
const out = (o) => process.stdout.write(JSON.stringify(o) + "\n");
const call = async (c) => {
  const res = await client.callTool(c);
  const line = {
    event: "call",
    name: c.name,
    arguments: c.arguments,
    isError: !!res.isError,
    structured: res.structuredContent === undefined ? null : JSON.stringify(res.structuredContent),
    text: (res.content ?? []).filter((x) => x.type === "text").map((x) => x.text).join(""),
  };
  out(line);
  return res;
};

const scan = JSON.parse(process.env.SCAN);
let cursor;
for (let page = 0; page < 200; page++) {
  const args = { ...scan };
  if (cursor) args.cursor = cursor;
  const res = await call({ name: "scan", arguments: args });
  if (res.isError || !res.structuredContent) break;
  cursor = res.structuredContent.cursor;
  if (res.structuredContent.complete) break;
}
for (const c of JSON.parse(process.env.CALLS ?? "[]")) await call(c);
await client.close();
