import { useState, type DragEvent } from 'react'
import { addFile, readFiles, removeAll, type DroppedFile } from './documents'

const ACCEPTED = /\.(txt|md|markdown)$/i

/** Drop text or Markdown files: their passages go into the page's vector store, and each question is answered from them. */
export function Documents({ onChange }: { onChange: (files: DroppedFile[]) => void }) {
  const [files, setFiles] = useState<DroppedFile[]>(readFiles)
  const [status, setStatus] = useState<string>()
  const [over, setOver] = useState(false)

  const take = async (dropped: readonly File[]) => {
    for (const file of dropped) {
      if (!ACCEPTED.test(file.name)) {
        setStatus(`${file.name} is not a .txt or .md file`)
        continue
      }
      try {
        setStatus(`Adding ${file.name}…`)
        const next = await addFile(file.name, await file.text())
        setFiles(next)
        onChange(next)
        setStatus(`Added ${file.name}`)
      } catch (error) {
        setStatus(error instanceof Error ? error.message : String(error))
      }
    }
  }
  const drop = (event: DragEvent) => {
    event.preventDefault()
    setOver(false)
    void take([...event.dataTransfer.files])
  }
  const clear = async () => {
    await removeAll()
    setFiles([])
    onChange([])
    setStatus('Removed every document')
  }
  return (
    <section className="card" aria-labelledby="documents-heading">
      <h2 id="documents-heading">Documents</h2>
      <p className="hint">
        Drop .txt or .md files: they are cut into passages and kept in IndexedDB on this device. Each question then goes
        through a QuestionAnswerAdvisor, and the passages it found show in the devtools under the round.
      </p>
      <label
        className={`dropzone${over ? ' over' : ''}`}
        data-testid="document-drop"
        onDragOver={(event) => {
          event.preventDefault()
          setOver(true)
        }}
        onDragLeave={() => setOver(false)}
        onDrop={drop}
      >
        Drop files here, or choose them
        <input
          type="file"
          accept=".txt,.md,.markdown,text/plain,text/markdown"
          multiple
          aria-label="Add documents"
          onChange={(event) => {
            void take([...(event.target.files ?? [])])
            event.target.value = ''
          }}
        />
      </label>
      {status && (
        <p className="muted" role="status" data-testid="documents-status">
          {status}
        </p>
      )}
      {files.length > 0 && (
        <>
          <ul className="documents" data-testid="documents">
            {files.map((file) => (
              <li key={file.name}>
                <code>{file.name}</code> <span className="muted">{file.passages} passages</span>
              </li>
            ))}
          </ul>
          <button type="button" onClick={() => void clear()}>
            Remove all
          </button>
        </>
      )}
      <p className="muted">
        Offline, passages are embedded with HashingEmbeddingModel, a test double that matches words rather than meaning.
      </p>
    </section>
  )
}
