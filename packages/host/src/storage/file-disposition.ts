/**
 * How a result file may be shown. Result files are user-influenced content served from the API's (and
 * the dashboard's) origin, so only passive media are rendered in place: raster images, video, audio and
 * plain text. Everything else (SVG, HTML, JSON, XML, PDF, unknown bytes) is served as an attachment, so a
 * browser downloads it instead of running it. SVG counts as active content (it can carry scripts): it is
 * downloaded, not converted.
 */
const INLINE = /^(?:image\/(?:png|jpeg|gif|webp|avif|bmp)|video\/[a-z0-9.+-]+|audio\/[a-z0-9.+-]+|text\/plain)$/;

/**
 * The Content-Security-Policy of every result file: nothing may load, and a file opened as a document
 * runs in a sandbox (an opaque origin: no scripts, no forms, no access to the API's cookies or storage).
 */
export const RESULT_FILE_CSP = "default-src 'none'; sandbox";

/** The bare media type (no parameters), lower-cased. */
function bareType(mediaType: string): string {
  return (mediaType.split(';')[0] ?? '').trim().toLowerCase();
}

/** True when the file may be rendered inline (a raster image, video, audio or plain text). */
export function servesInline(mediaType: string): boolean {
  return INLINE.test(bareType(mediaType));
}

/**
 * `inline` or `attachment`, with the file's name as a person should see it: the last part of the blob key
 * without the attempt that stored it (`output-0-<attempt>.png` is offered as `output-0.png`), plain ASCII.
 */
export function contentDispositionFor(mediaType: string, key: string): string {
  const name = key
    .slice(key.lastIndexOf('/') + 1)
    .replace(/^(output-\d+)-[0-9a-f]{12}(\.[a-z0-9]+)$/, '$1$2')
    .replace(/[^A-Za-z0-9._-]/g, '_');
  return `${servesInline(mediaType) ? 'inline' : 'attachment'}; filename="${name}"`;
}

/**
 * The Content-Type a result file is served with: its own for inline media (text as UTF-8), and its own
 * for attachments too (the disposition keeps browsers from rendering them); an empty or malformed type
 * becomes application/octet-stream.
 */
export function servedContentType(mediaType: string): string {
  const bare = bareType(mediaType);
  if (!/^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/.test(bare)) return 'application/octet-stream';
  if (bare.startsWith('text/')) {
    const charset = /;\s*charset=([A-Za-z0-9_-]+)/i.exec(mediaType)?.[1];
    return `${bare}; charset=${charset ?? 'utf-8'}`;
  }
  return bare;
}
