/** `node --import tsx s3-server-main.ts <directory> <bucket>`: s3rver on a free loopback port; prints "listening on <port>". */
import S3rver from 's3rver';

const [directory, bucket] = process.argv.slice(2);
if (!directory || !bucket) throw new Error('usage: s3-server-main.ts <directory> <bucket>');
const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: bucket, configs: [] }] });
const { port } = await server.run();
process.stdout.write(`listening on ${port}\n`);
process.on('SIGTERM', () => {
  void server.close().then(() => process.exit(0));
});
