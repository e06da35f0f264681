<?php

// seed.php writes storage/app/users.php: the demo account of examples/web,
// its password hashed with argon2id at the cost of config/hashing.php
// (Plinth's: 19 MiB, 2 passes, 1 thread). bench/laravel/run.sh runs it.
$cfg = (require __DIR__.'/config/hashing.php')['argon'];
$hash = password_hash('demo-password', PASSWORD_ARGON2ID, [
    'memory_cost' => $cfg['memory'], 'time_cost' => $cfg['time'], 'threads' => $cfg['threads'],
]);
$users = [['id' => '1', 'email' => 'demo@example.com', 'name' => 'Demo', 'password' => $hash]];
file_put_contents(__DIR__.'/storage/app/users.php', "<?php\n\nreturn ".var_export($users, true).";\n");
