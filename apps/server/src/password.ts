import { randomBytes, scrypt, type BinaryLike, type ScryptOptions } from "node:crypto";

const scryptAsync = (password: BinaryLike, salt: BinaryLike, keylen: number, options: ScryptOptions) =>
  new Promise<Buffer>((resolve, reject) => scrypt(password, salt, keylen, options, (err, key) => (err ? reject(err) : resolve(key))));

const N = 16384;
const R = 8;
const P = 1;

/** Hashes a password with scrypt as a PHC string `$scrypt$ln=14,r=8,p=1$<salt>$<hash>`. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(password.normalize("NFKC"), salt, 32, { N, r: R, p: P });
  return `$scrypt$ln=${Math.log2(N)},r=${R},p=${P}$${salt.toString("base64url")}$${key.toString("base64url")}`;
}
