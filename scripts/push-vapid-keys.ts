/**
 * `npm run push:vapid-keys`: prints a fresh VAPID key pair for Web Push (README.md "Push notifications"),
 * as the two lines to put in the environment. Generate it once per deployment and keep it: browsers'
 * subscriptions are bound to the public key, so a new pair makes every browser subscribe again.
 */
import webpush from 'web-push'

const { publicKey, privateKey } = webpush.generateVAPIDKeys()
console.log(`VAPID_PUBLIC_KEY=${publicKey}`)
console.log(`VAPID_PRIVATE_KEY=${privateKey}`)
