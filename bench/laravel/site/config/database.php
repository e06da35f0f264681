<?php

// No database: the users are seeded in a file (see SeededUserProvider).
// The provider is listed only because artisan's commands need it.
return [
    'default' => 'sqlite',
    'connections' => [
        'sqlite' => ['driver' => 'sqlite', 'database' => ':memory:', 'prefix' => ''],
    ],
    'migrations' => 'migrations',
];
