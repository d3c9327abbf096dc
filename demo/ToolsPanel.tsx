import type { McpToolSet } from 'advisor-chain/mcp'
import { useEffect, useState } from 'react'
import { McpServers } from './McpServers'
import { demoTools, readNotes, type Note } from './tools'

/** The browser tools the model may call, each with its schema, the notes they keep, and MCP servers. */
export function ToolsPanel({ mcpSets, onMcpSets }: { mcpSets: McpToolSet[]; onMcpSets: (sets: McpToolSet[]) => void }) {
  const [notes, setNotes] = useState<Note[]>(readNotes)
  useEffect(() => {
    const refresh = () => setNotes(readNotes())
    window.addEventListener('demo-notes-changed', refresh)
    window.addEventListener('storage', refresh)
    return () => {
      window.removeEventListener('demo-notes-changed', refresh)
      window.removeEventListener('storage', refresh)
    }
  }, [])
  return (
    <section className="card" aria-labelledby="tools-heading">
      <h2 id="tools-heading">Tools</h2>
      <p className="hint">Plain browser functions. The model sees each one's name, description and JSON Schema.</p>
      {demoTools.map((tool) => (
        <details key={tool.definition.name} className="tool">
          <summary>
            <code>{tool.definition.name}</code>
            {tool.metadata.returnDirect && <span className="pill">returnDirect</span>}
            <span className="muted">{tool.definition.description}</span>
          </summary>
          <pre>{JSON.stringify(tool.definition.inputSchema, null, 2)}</pre>
        </details>
      ))}
      <h3>Notes in this browser</h3>
      {notes.length === 0 ? (
        <p className="muted">None yet. Ask “Note: …”.</p>
      ) : (
        <ul className="notes" data-testid="notes">
          {notes.map((note) => (
            <li key={note.id}>
              <span className="muted">#{note.id}</span> {note.text}
            </li>
          ))}
        </ul>
      )}
      <McpServers sets={mcpSets} onChange={onMcpSets} />
    </section>
  )
}
