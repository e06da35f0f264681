<?php

return [
    'defaults' => ['guard' => 'web', 'passwords' => 'users'],
    'guards' => [
        'web' => ['driver' => 'session', 'provider' => 'users'],
    ],
    'providers' => [
        'users' => ['driver' => 'seeded', 'file' => storage_path('app/users.php')],
    ],
    'passwords' => [],
    'password_timeout' => 10800,
];
