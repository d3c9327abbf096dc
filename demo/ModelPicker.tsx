import type { ChatModel } from 'advisor-chain'
import { checkWebGPU, isModelCached, type LoadProgress, type WebGPUReport } from 'advisor-chain/webllm'
import { useEffect, useState } from 'react'
import { InBrowserEngines, LoadStatus } from './InBrowserEngines'
import {
  describeChoice,
  openAICompatiblePresets,
  recommendedWebLLMModels,
  rememberKey,
  rememberedKey,
  remoteModel,
  webLLMModel,
  type ModelChoice,
} from './models'

export interface ActiveModel {
  choice: ModelChoice
  model: ChatModel
}

/** The picker's tabs; 'webllm' is "In this browser", where every in-page engine is offered. */
type Kind = Exclude<ModelChoice['kind'], 'installed' | 'prompt-api' | 'wllama'>

const tabOf = (kind: ModelChoice['kind']): Kind =>
  kind === 'installed' ? 'scripted' : kind === 'prompt-api' || kind === 'wllama' ? 'webllm' : kind

/** Picks the model: an in-browser engine (WebLLM, Chrome's built-in model, llama.cpp), an OpenAI-compatible server, Anthropic, or the offline scripted demo. */
export function ModelPicker({
  active,
  onModel,
}: {
  active: ActiveModel | undefined
  onModel: (model: ActiveModel) => void
}) {
  const [gpu, setGpu] = useState<WebGPUReport>()
  const [kind, setKind] = useState<Kind>(active ? tabOf(active.choice.kind) : 'scripted')
  useEffect(() => {
    void checkWebGPU().then((report) => {
      setGpu(report)
      // WebLLM is the default where it can run; elsewhere the offline demo, and the page says why.
      if (!active) {
        setKind(report.ok ? 'webllm' : 'scripted')
        if (!report.ok) onModel({ choice: { kind: 'scripted' }, model: remoteModel({ kind: 'scripted' }) })
      }
    })
    // Only once, on first load.
  }, [])
  return (
    <section className="card" aria-labelledby="model-heading">
      <h2 id="model-heading">Model</h2>
      <p className="current" data-testid="current-model">
        {active ? describeChoice(active.choice) : 'No model yet'}
      </p>
      {gpu && !gpu.ok && (
        <p className="hint" data-testid="webgpu-status">
          {gpu.message} {active?.choice.kind === 'scripted' ? 'Using the offline scripted demo.' : ''}
        </p>
      )}
      <div role="radiogroup" aria-label="Kind of model" className="segmented">
        {(
          [
            ['webllm', 'In this browser'],
            ['openai', 'OpenAI-compatible'],
            ['anthropic', 'Anthropic'],
            ['scripted', 'Offline demo'],
          ] as Array<[Kind, string]>
        ).map(([value, label]) => (
          <button key={value} type="button" role="radio" aria-checked={kind === value} onClick={() => setKind(value)}>
            {label}
          </button>
        ))}
      </div>
      {kind === 'webllm' && (
        <InBrowserEngines gpu={gpu} webllmForm={<WebLLMForm gpu={gpu} onModel={onModel} />} onModel={onModel} />
      )}
      {kind === 'openai' && <OpenAIForm onModel={onModel} />}
      {kind === 'anthropic' && <AnthropicForm onModel={onModel} />}
      {kind === 'scripted' && (
        <div className="form">
          <p className="hint">
            Scripted replies chosen from keywords — a test double, not a model — so the whole chain can be explored
            offline.
          </p>
          {active?.choice.kind === 'scripted' ? (
            <p className="in-use" data-testid="offline-in-use">
              The offline demo is in use.
            </p>
          ) : (
            <button
              type="button"
              className="primary"
              onClick={() => onModel({ choice: { kind: 'scripted' }, model: remoteModel({ kind: 'scripted' }) })}
            >
              Use the offline demo
            </button>
          )}
        </div>
      )}
    </section>
  )
}

function WebLLMForm({ gpu, onModel }: { gpu: WebGPUReport | undefined; onModel: (model: ActiveModel) => void }) {
  const [modelId, setModelId] = useState(recommendedWebLLMModels[0]!.id)
  const [progress, setProgress] = useState<LoadProgress>()
  const [loading, setLoading] = useState(false)
  const [error, setError] = useState<string>()
  const [cached, setCached] = useState<boolean>()
  useEffect(() => {
    if (!gpu?.ok) return
    let live = true
    isModelCached(modelId)
      .then((value) => live && setCached(value))
      .catch(() => live && setCached(undefined))
    return () => {
      live = false
    }
  }, [gpu, modelId])
  if (!gpu) return <p className="hint">Checking WebGPU…</p>
  if (!gpu.ok) return <p className="hint warning-text">{gpu.message}</p>
  const chosen = recommendedWebLLMModels.find((model) => model.id === modelId)
  const load = async () => {
    setLoading(true)
    setError(undefined)
    try {
      const model = await webLLMModel(modelId, setProgress)
      onModel({ choice: { kind: 'webllm', modelId: model.model }, model })
    } catch (failure) {
      setError((failure as Error).message)
    } finally {
      setLoading(false)
    }
  }
  return (
    <div className="form">
      <p className="hint">{gpu.message}</p>
      <label>
        Model
        <select value={modelId} onChange={(event) => setModelId(event.target.value)} disabled={loading}>
          {recommendedWebLLMModels.map((model) => (
            <option key={model.id} value={model.id}>
              {model.id} · {(model.vramMB / 1024).toFixed(1)} GB · {model.note}
            </option>
          ))}
        </select>
      </label>
      <p className="hint">
        {chosen && `Needs about ${(chosen.vramMB / 1024).toFixed(1)} GB of GPU memory. `}
        {cached === true
          ? 'Already downloaded: loads from the cache.'
          : cached === false
            ? 'Downloads once, then loads from the browser cache.'
            : ''}
      </p>
      <button type="button" className="primary" onClick={() => void load()} disabled={loading}>
        {loading ? 'Loading…' : cached ? 'Load model' : 'Download and load'}
      </button>
      <LoadStatus loading={loading} progress={progress} error={error} label="Model download" />
    </div>
  )
}

function OpenAIForm({ onModel }: { onModel: (model: ActiveModel) => void }) {
  const [preset, setPreset] = useState(openAICompatiblePresets[0]!)
  const [baseURL, setBaseURL] = useState(preset.baseURL)
  const [model, setModel] = useState(preset.model)
  const [apiKey, setApiKey] = useState(() => rememberedKey('openai'))
  const [remember, setRemember] = useState(() => rememberedKey('openai') !== '')
  return (
    <form
      className="form"
      onSubmit={(event) => {
        event.preventDefault()
        rememberKey('openai', remember ? apiKey : '')
        const choice = { kind: 'openai' as const, baseURL, model, apiKey }
        onModel({ choice, model: remoteModel(choice) })
      }}
    >
      <label>
        Server
        <select
          value={preset.name}
          onChange={(event) => {
            const next = openAICompatiblePresets.find((candidate) => candidate.name === event.target.value)!
            setPreset(next)
            setBaseURL(next.baseURL)
            setModel(next.model)
          }}
        >
          {openAICompatiblePresets.map((candidate) => (
            <option key={candidate.name}>{candidate.name}</option>
          ))}
        </select>
      </label>
      <label>
        Base URL
        <input value={baseURL} onChange={(event) => setBaseURL(event.target.value)} required type="url" />
      </label>
      <label>
        Model
        <input value={model} onChange={(event) => setModel(event.target.value)} required />
      </label>
      <KeyField value={apiKey} onChange={setApiKey} remember={remember} onRemember={setRemember} optional />
      <button type="submit" className="primary">
        Use this server
      </button>
    </form>
  )
}

function AnthropicForm({ onModel }: { onModel: (model: ActiveModel) => void }) {
  const [model, setModel] = useState('claude-sonnet-4-5')
  const [apiKey, setApiKey] = useState(() => rememberedKey('anthropic'))
  const [remember, setRemember] = useState(() => rememberedKey('anthropic') !== '')
  return (
    <form
      className="form"
      onSubmit={(event) => {
        event.preventDefault()
        rememberKey('anthropic', remember ? apiKey : '')
        const choice = { kind: 'anthropic' as const, model, apiKey }
        onModel({ choice, model: remoteModel(choice) })
      }}
    >
      <label>
        Model
        <input value={model} onChange={(event) => setModel(event.target.value)} required />
      </label>
      <KeyField value={apiKey} onChange={setApiKey} remember={remember} onRemember={setRemember} />
      <button type="submit" className="primary">
        Use Anthropic
      </button>
    </form>
  )
}

function KeyField(props: {
  value: string
  onChange: (key: string) => void
  remember: boolean
  onRemember: (remember: boolean) => void
  optional?: boolean
}) {
  return (
    <>
      <label>
        API key{props.optional ? ' (not needed for local servers)' : ''}
        <input
          type="password"
          autoComplete="off"
          value={props.value}
          onChange={(event) => props.onChange(event.target.value)}
          required={!props.optional}
        />
      </label>
      <label className="check">
        <input type="checkbox" checked={props.remember} onChange={(event) => props.onRemember(event.target.checked)} />{' '}
        Remember in this tab only
      </label>
      <p className="hint">The key stays in this page: never logged, masked in traces, sent only to the server above.</p>
    </>
  )
}
