// Drives Ireneo with the official TypeScript MCP SDK, as an agent's client
// would, and prints one JSON line per tool call: the serialized
// structuredContent and the text the model would read. The Go test measures
// them. Configuration comes from the environment:
//   IRENEO_SDK   the @modelcontextprotocol/sdk package folder
//   MODE         "http" (URL, TOKEN) or "stdio" (CMD, ARGS as JSON, ENV as JSON)
//   CALLS        JSON list of {name, arguments}
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
    env: JSON.parse(process.env.ENV), // exactly this: a bare environment
    stderr: "inherit",
  });
}

const client = new Client({ name: "ireneo-sdk-test", version: "1" });
await client.connect(transport);
const out = (o) => process.stdout.write(JSON.stringify(o) + "\n");
out({ event: "connected", protocol: transport.protocolVersion ?? null, session: transport.sessionId ?? null });

for (const call of JSON.parse(process.env.CALLS)) {
  const res = await client.callTool(call);
  out({
    event: "call",
    name: call.name,
    arguments: call.arguments,
    isError: !!res.isError,
    structured: res.structuredContent === undefined ? null : JSON.stringify(res.structuredContent),
    text: (res.content ?? []).filter((c) => c.type === "text").map((c) => c.text).join(""),
  });
}

if (process.env.MODE === "http") {
  // End the session as the spec has it, then show a later call is refused.
  const sid = transport.sessionId;
  await transport.terminateSession();
  let after;
  try {
    const t2 = new (await load("client/streamableHttp.js")).StreamableHTTPClientTransport(new URL(process.env.URL), {
      requestInit: { headers: { Authorization: `Bearer ${process.env.TOKEN}`, "Mcp-Session-Id": sid ?? "" } },
    });
    await t2.send({ jsonrpc: "2.0", id: 99, method: "tools/list", params: {} });
    after = "accepted";
  } catch (e) {
    after = String(e.message ?? e);
  }
  out({ event: "terminated", session: sid ?? null, after });
}
await client.close();
