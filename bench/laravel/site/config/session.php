<?php

// File sessions, Laravel's default driver (Redis would need php-redis and a
// server; the Plinth and gin sites keep theirs in memory).
return [
    'driver' => 'file',
    'lifetime' => 1440, // minutes: Plinth's session cookie lasts a day
    'expire_on_close' => false,
    'encrypt' => false,
    'files' => storage_path('framework/sessions'),
    'connection' => null,
    'table' => 'sessions',
    'store' => null,
    'lottery' => [2, 100],
    'cookie' => 'laravel_session',
    'path' => '/',
    'domain' => null,
    'secure' => false,
    'http_only' => true,
    'same_site' => 'lax',
];
