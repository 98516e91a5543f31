import { useEffect, useState } from 'react';

const IMAGE = /\.(png|jpe?g|webp|gif|avif)$/i;
const VIDEO = /\.(mp4|webm|mov|m4v)$/i;
const TEXT = /\.(txt|md|json)$/i;

function fileName(url: string): string {
  try {
    return decodeURIComponent(new URL(url, window.location.href).pathname.split('/').pop() ?? url);
  } catch {
    return url;
  }
}

function TextResult({ url }: { url: string }) {
  const [text, setText] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    fetch(url).then(
      async (r) => {
        if (!r.ok) throw new Error(`HTTP ${r.status}`);
        const t = await r.text();
        if (live) setText(t);
      },
      (e: unknown) => live && setError(String(e)),
    ).catch((e: unknown) => live && setError(e instanceof Error ? e.message : String(e)));
    return () => {
      live = false;
    };
  }, [url]);
  if (error) return <p className="muted">The text could not be loaded ({error}).</p>;
  return <pre className="result-text" data-testid="result-text">{text ?? 'Loading…'}</pre>;
}

/** A task's results in the page: text shown, images shown, video played (an animated preview is an image). */
export function ResultView({ urls, modality, label }: { urls: string[]; modality: string; label: string }) {
  if (urls.length === 0) return null;
  return (
    <div className="results">
      {urls.map((url, i) => {
        const name = fileName(url);
        let body;
        if (VIDEO.test(name)) {
          body = <video src={url} controls muted playsInline preload="metadata" data-testid="result-video" aria-label={`${label}: video ${i + 1}`} />;
        } else if (IMAGE.test(name)) {
          const preview = modality === 'video';
          body = (
            <img
              src={url}
              alt={preview ? `${label}: animated video preview ${i + 1}` : `${label}: image ${i + 1}`}
              data-testid={preview ? 'result-video-preview' : 'result-image'}
              loading="lazy"
            />
          );
        } else if (TEXT.test(name) || modality === 'chat') {
          body = <TextResult url={url} />;
        } else {
          body = null;
        }
        return (
          <figure key={url}>
            {body}
            <figcaption>
              <a href={url} target="_blank" rel="noreferrer">
                {name}
              </a>
              {modality === 'video' && IMAGE.test(name) ? ' (animated preview)' : ''}
            </figcaption>
          </figure>
        );
      })}
    </div>
  );
}
