import type { TraceEventOf } from 'advisor-chain/trace'
import { duration, plural } from './format'

/** What a retrieval looked up: the query, then each document with its score, excerpt and metadata. */
export function RetrievedDocuments({ retrieval }: { retrieval: TraceEventOf<'retrieval'> }) {
  return (
    <>
      <dl className="kv">
        <dt>Query</dt>
        <dd>{retrieval.query}</dd>
        <dt>Asked for</dt>
        <dd>
          top {retrieval.topK}
          {retrieval.minScore !== undefined ? ` with a score of at least ${retrieval.minScore}` : ''}
        </dd>
        <dt>Found</dt>
        <dd>{plural(retrieval.documents.length, 'document')}</dd>
        <dt>Took</dt>
        <dd>{duration(retrieval.durationMs)}</dd>
      </dl>
      <ol className="retrieved" data-testid="retrieved-documents">
        {retrieval.documents.map((document) => (
          <li key={document.id} data-testid="retrieved-document">
            <div className="caption">
              <code>{document.id}</code> · score {document.score.toFixed(3)}
            </div>
            <pre>{document.text}</pre>
            {document.metadata && <pre className="muted">{JSON.stringify(document.metadata, null, 2)}</pre>}
          </li>
        ))}
      </ol>
    </>
  )
}
