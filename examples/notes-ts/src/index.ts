/**
 * Notes: a small personal-notes MCP server, the TypeScript example of mcp-evals.
 *
 * Six tools in two areas (notes, tags) over an in-memory notebook that is seeded the same way on
 * every start. It speaks stdio only: stdout carries protocol messages, logs go to stderr.
 *
 *     npm ci && npm run build && node dist/index.js
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";

interface Note {
  id: string;
  title: string;
  body: string;
  tags: string[];
  updatedAt: string;
}

// A fixed clock keeps every answer the same from run to run.
const NOW = Date.parse("2025-03-14T15:00:00Z");
let clock = 0;
const tick = (): string => new Date(NOW + ++clock * 60_000).toISOString();

const seed: Array<[id: string, title: string, body: string, tags: string[]]> = [
  ["n-101", "Shopping list", "- eggs\n- coffee beans\n- rye bread\n- lemons", ["groceries"]],
  ["n-102", "Q2 planning", "Hire a second designer. Launch moves to May 20. Budget review Friday.", ["work"]],
  ["n-103", "Dentist", "Dr. Alvarez, Thursday March 20 at 8:30. Bring the insurance card.", ["health"]],
  ["n-104", "Lisbon trip", "Flights booked for April 3–9. Stay in Alfama. Pastéis in Belém!", ["travel"]],
  ["n-105", "Book ideas", "The Overstory; Piranesi; A Psalm for the Wild-Built.", ["reading"]],
  ["n-106", "Sourdough", "Feed the starter at 9pm. 500g flour, 350g water, 100g starter, 10g salt.", ["recipes"]],
  ["n-107", "Gift ideas for Mia", "Watercolour set, the new Sally Rooney novel, a plant for her balcony.", []],
  ["n-108", "1:1 with Sam", "Ask about the conference budget. Mention the on-call rota.", ["work"]],
];
const notes = new Map<string, Note>(
  seed.map(([id, title, body, tags]) => [id, { id, title, body, tags, updatedAt: new Date(NOW).toISOString() }]),
);
let nextId = 109;

const result = (value: unknown): CallToolResult => ({
  content: [{ type: "text", text: JSON.stringify(value, null, 2) }],
});
const failure = (message: string): CallToolResult => ({ content: [{ type: "text", text: message }], isError: true });
const summary = ({ id, title, tags, updatedAt }: Note) => ({ id, title, tags, updatedAt });
const normalizeTag = (tag: string): string => tag.trim().toLowerCase().replace(/^#/, "").replace(/\s+/g, "-");

const noteId = z.string().describe("The note id, e.g. n-104.");
const server = new McpServer({ name: "notes", version: "1.0.0" });

// --- notes ---------------------------------------------------------------------------------------

server.registerTool(
  "search_notes",
  {
    title: "Search notes",
    description:
      "Search the text and titles of all notes and return the matching notes, best match first. " +
      "Use it to find what the user wrote about something.",
    inputSchema: {
      query: z.string().min(1).describe("Words to look for, e.g. 'dentist' or 'launch date'."),
      tag: z.string().optional().describe("Only notes with this tag."),
    },
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  async ({ query, tag }) => {
    const words = query.toLowerCase().split(/\W+/).filter((w) => w.length > 2);
    const wanted = tag === undefined ? undefined : normalizeTag(tag);
    const hits = [...notes.values()]
      .filter((n) => wanted === undefined || n.tags.includes(wanted))
      .map((n) => ({ n, score: words.filter((w) => `${n.title} ${n.body}`.toLowerCase().includes(w)).length }))
      .filter(({ score }) => score > 0)
      .sort((a, b) => b.score - a.score || a.n.id.localeCompare(b.n.id));
    const found = hits.map(({ n }) => ({ ...summary(n), snippet: n.body.slice(0, 80) }));
    return result({ total: found.length, notes: found });
  },
);

server.registerTool(
  "get_note",
  {
    title: "Get a note",
    description: "Get the full text and tags of one note by its id.",
    inputSchema: { note_id: noteId },
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  async ({ note_id }) => {
    const note = notes.get(note_id.trim().toLowerCase());
    return note ? result(note) : failure(`No note ${note_id}. Note ids look like n-104; use search_notes to find one.`);
  },
);

server.registerTool(
  "create_note",
  {
    title: "Create a note",
    description:
      "Create a new note with a title and text. To add a line to a note that already exists, use append_to_note.",
    inputSchema: {
      title: z.string().min(1).max(120).describe("A short title."),
      body: z.string().describe("The text of the note."),
      tags: z.array(z.string()).optional().describe("Tags to file the note under, e.g. ['work']."),
    },
    annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
  },
  async ({ title, body, tags }) => {
    const unique = [...new Set((tags ?? []).map(normalizeTag))];
    const note: Note = { id: `n-${nextId++}`, title, body, tags: unique, updatedAt: tick() };
    notes.set(note.id, note);
    console.error(`created ${note.id}`);
    return result(note);
  },
);

server.registerTool(
  "append_to_note",
  {
    title: "Append to a note",
    description:
      "Add text to the end of an existing note, e.g. an item on a list. To start a new note, use create_note.",
    inputSchema: {
      note_id: noteId,
      text: z.string().min(1).describe("The text to add; it goes on a new line."),
    },
    annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
  },
  async ({ note_id, text }) => {
    const note = notes.get(note_id.trim().toLowerCase());
    if (!note) return failure(`No note ${note_id}. Note ids look like n-104; use search_notes to find one.`);
    note.body = `${note.body}\n${text}`;
    note.updatedAt = tick();
    return result(note);
  },
);

// --- tags ----------------------------------------------------------------------------------------

server.registerTool(
  "list_tags",
  {
    title: "List tags",
    description: "List every tag in use with the number of notes that carry it.",
    inputSchema: {},
    // The one tool with structured output: clients can check the result against this schema.
    outputSchema: {
      tags: z.array(z.object({ tag: z.string(), notes: z.number().int() })),
      untagged: z.number().int().describe("Notes without any tag."),
    },
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  async () => {
    const counts = new Map<string, number>();
    for (const note of notes.values()) for (const tag of note.tags) counts.set(tag, (counts.get(tag) ?? 0) + 1);
    const tags = [...counts].sort(([a], [b]) => a.localeCompare(b)).map(([tag, count]) => ({ tag, notes: count }));
    const value = { tags, untagged: [...notes.values()].filter((n) => n.tags.length === 0).length };
    return { ...result(value), structuredContent: value };
  },
);

server.registerTool(
  "tag_note",
  {
    title: "Tag a note",
    description: "Add tags to a note, or remove them. Tags are lower-case words such as 'work' or 'travel'.",
    inputSchema: {
      note_id: noteId,
      add: z.array(z.string()).optional().describe("Tags to add."),
      remove: z.array(z.string()).optional().describe("Tags to remove."),
    },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  },
  async ({ note_id, add, remove }) => {
    const note = notes.get(note_id.trim().toLowerCase());
    if (!note) return failure(`No note ${note_id}. Note ids look like n-104; use search_notes to find one.`);
    if (!add?.length && !remove?.length) return failure("Nothing to do: give tags to `add` or `remove`.");
    const dropped = new Set((remove ?? []).map(normalizeTag));
    note.tags = [...new Set([...note.tags, ...(add ?? []).map(normalizeTag)])].filter((t) => !dropped.has(t));
    note.updatedAt = tick();
    return result(summary(note));
  },
);

await server.connect(new StdioServerTransport());
console.error("notes MCP server running on stdio");
