import type { ChatModel } from 'advisor-chain'
import { PromptApiChatModel, type Availability } from 'advisor-chain/prompt-api'
import type { WebGPUReport } from 'advisor-chain/webllm'
import { useEffect, useState, type ReactNode } from 'react'
import { bestEngine, inBrowserEngines, promptApiModel, wllamaModel, type EngineId, type WllamaSource } from './engines'
import type { ModelChoice } from './models'

interface Progress {
  fraction: number
  text: string
}

/**
 * Every engine that runs a model in the page, what each needs, whether this browser has it, and
 * the best one chosen with the reason. WebLLM's own form comes in as `webllmForm`.
 */
export function InBrowserEngines({
  gpu,
  webllmForm,
  onModel,
}: {
  gpu: WebGPUReport | undefined
  webllmForm: ReactNode
  onModel: (model: { choice: ModelChoice; model: ChatModel }) => void
}) {
  const [promptApi, setPromptApi] = useState<Availability | 'no-api'>()
  useEffect(() => {
    let live = true
    PromptApiChatModel.availability()
      .then((value) => live && setPromptApi(value))
      .catch(() => live && setPromptApi('unavailable'))
    return () => {
      live = false
    }
  }, [])
  const best = bestEngine(gpu, promptApi)
  const [picked, setPicked] = useState<EngineId>()
  const engine = picked ?? best.engine
  const here: Record<EngineId, string> = {
    webllm: gpu ? (gpu.ok ? 'available here' : 'not here: no usable WebGPU') : 'checking…',
    'prompt-api':
      promptApi === undefined
        ? 'checking…'
        : promptApi === 'no-api'
          ? 'not in this browser'
          : promptApi === 'unavailable'
            ? 'not on this device'
            : promptApi === 'available'
              ? 'available here'
              : 'here after a one-time download',
    wllama: 'available here',
  }
  return (
    <div className="form" data-testid="in-browser-engines">
      <p className="hint" data-testid="engine-reason">
        Best here: <strong>{inBrowserEngines.find((info) => info.id === best.engine)!.name}</strong>. {best.reason}
      </p>
      <div role="radiogroup" aria-label="In-browser engine" className="segmented">
        {inBrowserEngines.map((info) => (
          <button
            key={info.id}
            type="button"
            role="radio"
            aria-checked={engine === info.id}
            onClick={() => setPicked(info.id)}
          >
            {info.name}
          </button>
        ))}
      </div>
      {inBrowserEngines
        .filter((info) => info.id === engine)
        .map((info) => (
          <dl key={info.id} className="engine-facts" data-testid="engine-facts">
            <dt>Needs</dt>
            <dd>{info.needs}</dd>
            <dt>Here</dt>
            <dd>{here[info.id]}</dd>
            <dt>Download</dt>
            <dd>{info.download}</dd>
            <dt>Tool calls</dt>
            <dd>{info.tools}</dd>
          </dl>
        ))}
      {engine === 'webllm' && webllmForm}
      {engine === 'prompt-api' && <PromptApiForm availability={promptApi} onModel={onModel} />}
      {engine === 'wllama' && <WllamaForm onModel={onModel} />}
    </div>
  )
}

function PromptApiForm({
  availability,
  onModel,
}: {
  availability: Availability | 'no-api' | undefined
  onModel: (model: { choice: ModelChoice; model: ChatModel }) => void
}) {
  const load = useLoader()
  if (availability === 'no-api' || availability === 'unavailable')
    return <p className="hint warning-text">Chrome&apos;s built-in model is not available in this browser.</p>
  return (
    <>
      <button
        type="button"
        className="primary"
        disabled={load.loading || availability === undefined}
        onClick={() =>
          void load.run(async (report) => {
            const model = await promptApiModel(report)
            onModel({ choice: { kind: 'prompt-api' }, model })
          })
        }
      >
        {availability === 'available' ? "Use Chrome's built-in model" : 'Download (by Chrome) and use'}
      </button>
      <LoadStatus {...load} label="Built-in model download" />
    </>
  )
}

function WllamaForm({ onModel }: { onModel: (model: { choice: ModelChoice; model: ChatModel }) => void }) {
  const [kind, setKind] = useState<WllamaSource['kind']>('tiny')
  const [url, setUrl] = useState('')
  const [file, setFile] = useState<File>()
  const load = useLoader()
  const source: WllamaSource | undefined =
    kind === 'tiny' ? { kind } : kind === 'url' ? (url ? { kind, url } : undefined) : file ? { kind, file } : undefined
  return (
    <>
      <label>
        GGUF model
        <select value={kind} onChange={(event) => setKind(event.target.value as WllamaSource['kind'])}>
          <option value="tiny">Tiny test model (nonsense text), made in this page</option>
          <option value="url">From a URL</option>
          <option value="file">From a file</option>
        </select>
      </label>
      {kind === 'tiny' && (
        <p className="hint">
          0.5 MB of random weights: it proves the whole path runs on the real llama.cpp engine, but its text is
          nonsense. For real answers load an instruction-tuned GGUF (e.g. Qwen2.5-0.5B-Instruct Q4_K_M, 0.4 GB).
        </p>
      )}
      {kind === 'url' && (
        <label>
          URL (ending in .gguf)
          <input
            type="url"
            value={url}
            onChange={(event) => setUrl(event.target.value)}
            placeholder="https://…/model.gguf"
          />
        </label>
      )}
      {kind === 'file' && (
        <label>
          File
          <input type="file" accept=".gguf" onChange={(event) => setFile(event.target.files?.[0])} />
        </label>
      )}
      <button
        type="button"
        className="primary"
        disabled={load.loading || !source}
        onClick={() =>
          source &&
          void load.run(async (report) => {
            const model = await wllamaModel(source, report)
            onModel({ choice: { kind: 'wllama', name: model.model }, model })
          })
        }
      >
        Load with llama.cpp
      </button>
      <LoadStatus {...load} label="Model loading" />
    </>
  )
}

function useLoader() {
  const [loading, setLoading] = useState(false)
  const [progress, setProgress] = useState<Progress>()
  const [error, setError] = useState<string>()
  const run = async (task: (report: (progress: Progress) => void) => Promise<void>) => {
    setLoading(true)
    setError(undefined)
    setProgress(undefined)
    try {
      await task(setProgress)
    } catch (failure) {
      setError((failure as Error).message)
    } finally {
      setLoading(false)
    }
  }
  return { loading, progress, error, run }
}

/** A model's download progress while it loads, and its error. */
export function LoadStatus({
  loading,
  progress,
  error,
  label,
}: {
  loading: boolean
  progress: Progress | undefined
  error: string | undefined
  label: string
}) {
  return (
    <>
      {progress && loading && (
        <div
          className="progress"
          role="progressbar"
          aria-label={label}
          aria-valuemin={0}
          aria-valuemax={100}
          aria-valuenow={Math.round(progress.fraction * 100)}
        >
          <span style={{ width: `${progress.fraction * 100}%` }} />
          <small>{progress.text}</small>
        </div>
      )}
      {error && (
        <p className="error-text" role="alert">
          {error}
        </p>
      )}
    </>
  )
}
