<?php

namespace App\Http;

use Illuminate\Foundation\Http\Kernel as HttpKernel;

// The middleware of Laravel 8's application skeleton, less what needs
// packages Debian does not ship (fruitcake/laravel-cors, TrustProxies'
// fideloper/proxy), plus the two the Plinth site has by default: a request
// ID and the security headers.
class Kernel extends HttpKernel
{
    protected $middleware = [
        \App\Http\Middleware\RequestId::class,
        \App\Http\Middleware\SecurityHeaders::class,
        \Illuminate\Foundation\Http\Middleware\PreventRequestsDuringMaintenance::class,
        \Illuminate\Foundation\Http\Middleware\ValidatePostSize::class,
        \Illuminate\Foundation\Http\Middleware\TrimStrings::class,
        \Illuminate\Foundation\Http\Middleware\ConvertEmptyStringsToNull::class,
    ];

    protected $middlewareGroups = [
        'web' => [
            \App\Http\Middleware\EncryptCookies::class,
            \Illuminate\Cookie\Middleware\AddQueuedCookiesToResponse::class,
            \Illuminate\Session\Middleware\StartSession::class,
            \Illuminate\View\Middleware\ShareErrorsFromSession::class,
            \App\Http\Middleware\VerifyCsrfToken::class,
            \Illuminate\Routing\Middleware\SubstituteBindings::class,
            \App\Http\Middleware\SetLocale::class,
        ],
    ];

    protected $routeMiddleware = [
        'auth' => \App\Http\Middleware\Authenticate::class,
    ];
}
