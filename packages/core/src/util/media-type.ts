const EXTENSIONS: Readonly<Record<string, string>> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/webp': 'webp',
  'image/gif': 'gif',
  'video/mp4': 'mp4',
  'video/webm': 'webm',
  'text/plain': 'txt',
  'application/json': 'json',
};

export function extensionFor(mediaType: string): string {
  return EXTENSIONS[mediaType] ?? 'bin';
}

export function mediaTypeForExtension(ext: string): string {
  const hit = Object.entries(EXTENSIONS).find(([, e]) => e === ext);
  return hit ? hit[0] : 'application/octet-stream';
}
