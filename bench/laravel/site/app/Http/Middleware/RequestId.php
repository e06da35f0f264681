<?php

namespace App\Http\Middleware;

use Closure;

// RequestId gives every response an X-Request-Id, as Plinth's default
// layer does (a fresh random ID; Plinth's is a 26-character ULID).
class RequestId
{
    public function handle($request, Closure $next)
    {
        $id = strtoupper(bin2hex(random_bytes(13)));
        $response = $next($request);
        $response->headers->set('X-Request-Id', $id);

        return $response;
    }
}
