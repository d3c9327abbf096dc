import {
  ApprovalQueue,
  DefaultSessionService,
  IndexedDBChatMemoryRepository,
  IndexedDBSessionRepository,
  MessageWindowChatMemory,
  connectTestHarness,
  fanOut,
  forkRun,
  type ChatClient,
  type ForkRunRequest,
} from 'advisor-chain'
import { AdvisorDevtools, createDevtoolsStore, keepRuns } from 'advisor-chain/devtools'
import type { McpToolSet } from 'advisor-chain/mcp'
import { useCallback, useMemo, useState } from 'react'
import { AdvisorSettings } from './AdvisorSettings'
import { buildClient, type ChainLogEntry } from './build-client'
import { Chat } from './Chat'
import { Conversations } from './Conversations'
import { useMcpTools } from './McpServers'
import { ModelPicker, type ActiveModel } from './ModelPicker'
import { describeChoice } from './models'
import { useSettings } from './settings'
import { ToolsPanel } from './ToolsPanel'
import { TripPlanner } from './TripPlanner'
import { Documents } from './Documents'
import { documentStore, readFiles } from './documents'

// One of each for the page: the devtools' store (its last 20 finished runs kept over reloads), the approval queue, the memory.
const store = createDevtoolsStore({ maxRuns: 200, keep: keepRuns({ name: 'advisor-chain-demo', maxRuns: 20 }) })
const approvals = new ApprovalQueue()
const repository = new IndexedDBChatMemoryRepository({ databaseName: 'advisor-chain-demo' })
const memory = MessageWindowChatMemory.builder().chatMemoryRepository(repository).maxMessages(40).build()
// "Memory: session": an event log per conversation, compacted to the model's window.
const sessions = new DefaultSessionService(new IndexedDBSessionRepository({ name: 'advisor-chain-demo-sessions' }))
// End-to-end tests (advisor-chain/playwright) install models and read traces through this harness.
// Only test builds have it (VITE_TEST_HARNESS=true): it exposes window.__advisorChain and keeps
// every event, which a production page must not.
let install: (active: ActiveModel) => void = () => {}
// "Re-run from here" (the panel) and forkRound (tests) fork through the client the page uses now.
let current: ChatClient | undefined
const fork = (request: ForkRunRequest) => {
  if (!current) return Promise.reject(new Error('Load a model first: a fork runs through the current model'))
  return forkRun(current, request)
}
const harness =
  import.meta.env.VITE_TEST_HARNESS === 'true'
    ? connectTestHarness({
        onModel: (model, label) => install({ choice: { kind: 'installed', label }, model }),
        onFork: fork,
      })
    : undefined
const sink = harness ? fanOut(store, harness.sink) : store

type Tab = 'model' | 'advisors' | 'tools' | 'trip' | 'documents'

export function App() {
  const [settings, change] = useSettings()
  const [active, setActive] = useState<ActiveModel>()
  install = setActive
  const [tab, setTab] = useState<Tab>('model')
  const [conversationId, setConversationId] = useState(
    () => localStorage.getItem('advisor-chain-demo-conversation') ?? 'chat-1',
  )
  const [log, setLog] = useState<ChainLogEntry[]>([])
  const [refresh, setRefresh] = useState(0)
  const onLog = useCallback((entry: ChainLogEntry) => setLog((entries) => [...entries.slice(-50), entry]), [])
  const onActivity = useCallback(() => setRefresh((count) => count + 1), [])
  const [mcpSets, setMcpSets] = useState<McpToolSet[]>([])
  const mcp = useMcpTools(mcpSets)
  const [hasDocuments, setHasDocuments] = useState(() => readFiles().length > 0)
  const documents = hasDocuments ? documentStore : undefined
  const client = useMemo(
    () =>
      active &&
      buildClient({ model: active.model, settings, sink, approvals, memory, sessions, log: onLog, mcp, documents }),
    [active, settings, onLog, mcp, documents],
  )
  current = client
  const selectConversation = (id: string) => {
    setConversationId(id)
    localStorage.setItem('advisor-chain-demo-conversation', id)
  }
  const tabs: Array<[Tab, string]> = [
    ['model', 'Model'],
    ['advisors', 'Advisors'],
    ['tools', 'Tools'],
    ['trip', 'Structured output'],
    ['documents', 'Documents'],
  ]
  return (
    <>
      <div className="app" id="demo">
        <header className="top">
          <div className="brand">
            <svg className="logo" viewBox="0 0 32 32" aria-hidden="true">
              <rect x="3" y="9" width="14" height="14" rx="7" fill="none" stroke="currentColor" strokeWidth="3" />
              <rect x="15" y="9" width="14" height="14" rx="7" fill="none" stroke="currentColor" strokeWidth="3" />
            </svg>
            <div>
              <h1>advisor-chain</h1>
              <p>Recursive advisors for LLMs in the browser — with the loop in plain sight.</p>
            </div>
          </div>
          <span className="model-pill" data-testid="model-pill">
            {active ? describeChoice(active.choice) : 'Choose a model'}
          </span>
        </header>
        <div className="layout">
          {(settings.memory === 'outside' || settings.memory === 'inside') && (
            <Conversations
              repository={repository}
              current={conversationId}
              onSelect={selectConversation}
              refresh={refresh}
            />
          )}
          <Chat
            // A new chat when memory changes kind: a session's chat shows the whole log, a window's what it keeps.
            key={settings.memory === 'session' ? 'session' : 'memory'}
            client={client}
            memory={settings.memory === 'outside' || settings.memory === 'inside' ? memory : undefined}
            session={settings.memory === 'session' ? sessions : undefined}
            conversationId={conversationId}
            offline={active?.choice.kind === 'scripted'}
            {...(active ? {} : { disabledReason: 'Load a model (on the right) to start' })}
            onActivity={onActivity}
            approvals={approvals}
          />
          <aside className="side">
            <div role="tablist" aria-label="Settings" className="tabs">
              {tabs.map(([id, label]) => (
                <button key={id} type="button" role="tab" aria-selected={tab === id} onClick={() => setTab(id)}>
                  {label}
                </button>
              ))}
            </div>
            <div role="tabpanel">
              {tab === 'model' && <ModelPicker active={active} onModel={setActive} />}
              {tab === 'advisors' && <AdvisorSettings settings={settings} change={change} log={log} />}
              {tab === 'documents' && <Documents onChange={(files) => setHasDocuments(files.length > 0)} />}
              {tab === 'tools' && <ToolsPanel mcpSets={mcpSets} onMcpSets={setMcpSets} />}
              {tab === 'trip' && (
                <TripPlanner
                  client={client}
                  validate={settings.validation}
                  onValidate={(validation) => change({ validation })}
                />
              )}
            </div>
          </aside>
        </div>
      </div>
      <AdvisorDevtools store={store} approvals={approvals} fork={fork} initialIsOpen enabled />
    </>
  )
}
