<?php

namespace App\Http\Middleware;

use Closure;

// SecurityHeaders sends the set Plinth's default layer sends (plinth.New,
// layer_security.go): helmet's headers on documents (HTML, XML, SVG or no
// Content-Type), the short API set on anything else. A header the handler
// set itself is left as it is. HSTS is sent only over HTTPS (none here).
class SecurityHeaders
{
    private const DOCUMENT = [
        'Content-Security-Policy' => "default-src 'self';base-uri 'self';font-src 'self' https: data:;form-action 'self';frame-ancestors 'self';img-src 'self' data:;object-src 'none';script-src 'self';script-src-attr 'none';style-src 'self' https: 'unsafe-inline';upgrade-insecure-requests",
        'Cross-Origin-Opener-Policy' => 'same-origin',
        'Cross-Origin-Resource-Policy' => 'same-origin',
        'Origin-Agent-Cluster' => '?1',
        'Referrer-Policy' => 'no-referrer',
        'X-Content-Type-Options' => 'nosniff',
        'X-DNS-Prefetch-Control' => 'off',
        'X-Frame-Options' => 'SAMEORIGIN',
        'X-Permitted-Cross-Domain-Policies' => 'none',
        'X-XSS-Protection' => '0',
    ];

    private const SHORT = [
        'Content-Security-Policy' => "default-src 'none'; frame-ancestors 'none'",
        'Cross-Origin-Resource-Policy' => 'same-origin',
        'Referrer-Policy' => 'no-referrer',
        'X-Content-Type-Options' => 'nosniff',
    ];

    public function handle($request, Closure $next)
    {
        $response = $next($request);
        $type = (string) $response->headers->get('Content-Type', '');
        $document = $type === '' || str_contains($type, 'html') || str_contains($type, 'xml') || str_contains($type, 'svg');
        foreach ($document ? self::DOCUMENT : self::SHORT as $name => $value) {
            if (! $response->headers->has($name)) {
                $response->headers->set($name, $value);
            }
        }
        if ($request->isSecure()) {
            $response->headers->set('Strict-Transport-Security', 'max-age=31536000; includeSubDomains');
        }

        return $response;
    }
}
