import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// Built into dist/ and served by the host at /dashboard/ (no CDN: everything is bundled).
export default defineConfig({
  base: '/dashboard/',
  plugins: [react()],
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: false, chunkSizeWarningLimit: 800 },
  server: { proxy: { '/api': 'http://127.0.0.1:3000', '/dashboard/api': 'http://127.0.0.1:3000' } },
});
