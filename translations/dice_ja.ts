<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="ja" sourcelanguage="en">
<context>
    <name>QObject</name>
    <message>
        <source>%1: %2</source>
        <translation>%1: %2</translation>
    </message>
    <message>
        <source>%1 ms</source>
        <translation>%1 ms</translation>
    </message>
</context>
<context>
    <name>dice::AboutDialog</name>
    <message>
        <source>About DICE Workbench</source>
        <translation>DICE ワークベンチについて</translation>
    </message>
    <message>
        <source>&lt;h3&gt;DICE Workbench %1&lt;/h3&gt;&lt;p&gt;Generate, infill, test and time CUDA kernels with diffusion language models of the DICE family, and watch the model sculpt each kernel out of masked tokens.&lt;/p&gt;&lt;p&gt;Copyright © 2026 the DICE Workbench developers. This program is free software: you can redistribute it and/or modify it under the terms of the GNU General Public License, version 3 or (at your option) any later version.&lt;/p&gt;&lt;p&gt;Built with Qt, QScintilla, QCustomPlot, LibTorch, NVRTC and CUPTI.&lt;/p&gt;</source>
        <translation>&lt;h3&gt;DICE ワークベンチ %1&lt;/h3&gt;&lt;p&gt;DICE 系の拡散言語モデルで CUDA カーネルを生成・穴埋め・検証・計測し、モデルがマスクされたトークンからカーネルを彫り出していく様子を観察できます。&lt;/p&gt;&lt;p&gt;Copyright © 2026 DICE ワークベンチ開発者。本プログラムはフリーソフトウェアです。GNU 一般公衆利用許諾書のバージョン 3、または（任意で）それ以降のバージョンの条件のもとで再頒布・改変できます。&lt;/p&gt;&lt;p&gt;Qt、QScintilla、QCustomPlot、LibTorch、NVRTC、CUPTI を使用しています。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>The machine is still being checked.</source>
        <translation>マシンを確認しています。</translation>
    </message>
</context>
<context>
    <name>dice::DecodePlots</name>
    <message>
        <source>Committed per step</source>
        <translation>ステップごとの確定数</translation>
    </message>
    <message>
        <source>Confidence</source>
        <translation>確信度</translation>
    </message>
    <message>
        <source>Forward passes</source>
        <translation>順伝播回数</translation>
    </message>
    <message>
        <source>Diffusion</source>
        <translation>拡散</translation>
    </message>
    <message>
        <source>Autoregressive</source>
        <translation>自己回帰</translation>
    </message>
    <message>
        <source>Step</source>
        <translation>ステップ</translation>
    </message>
    <message>
        <source>Tokens committed</source>
        <translation>確定したトークン数</translation>
    </message>
    <message>
        <source>Mean confidence</source>
        <translation>平均確信度</translation>
    </message>
    <message>
        <source>Tokens produced</source>
        <translation>生成したトークン数</translation>
    </message>
</context>
<context>
    <name>dice::DenoisingCanvas</name>
    <message>
        <source>Position %1: token %2 %3
committed at step %4 (block %5), confidence %6</source>
        <translation>位置 %1: トークン %2 %3
ステップ %4 (ブロック %5) で確定、確信度 %6</translation>
    </message>
    <message>
        <source>Position %1: still masked</source>
        <translation>位置 %1: まだマスクされています</translation>
    </message>
</context>
<context>
    <name>dice::DiagnosticModel</name>
    <message>
        <source>error</source>
        <translation>エラー</translation>
    </message>
    <message>
        <source>warning</source>
        <translation>警告</translation>
    </message>
    <message>
        <source>remark</source>
        <translation>注記</translation>
    </message>
    <message>
        <source>%1 (#%2)</source>
        <translation>%1 (#%2)</translation>
    </message>
    <message>
        <source>Severity</source>
        <translation>重大度</translation>
    </message>
    <message>
        <source>Line</source>
        <translation>行</translation>
    </message>
    <message>
        <source>Column</source>
        <translation>列</translation>
    </message>
    <message>
        <source>Message</source>
        <translation>メッセージ</translation>
    </message>
</context>
<context>
    <name>dice::EvaluationView</name>
    <message>
        <source>Correct, %1× the speed of the PyTorch reference.</source>
        <translation>正解。PyTorch 参照実装の %1 倍の速さです。</translation>
    </message>
    <message>
        <source>Correct.</source>
        <translation>正解。</translation>
    </message>
    <message>
        <source>Wrong: an output differs from the reference.</source>
        <translation>不正解: 出力が参照実装と一致しません。</translation>
    </message>
    <message>
        <source>Does not compile.</source>
        <translation>コンパイルできません。</translation>
    </message>
    <message>
        <source>Not a valid candidate of the dialect.</source>
        <translation>この形式の候補として正しくありません。</translation>
    </message>
    <message>
        <source>Failed while running (a launch failed or the kernel faulted).</source>
        <translation>実行中に失敗しました (起動の失敗またはカーネルの異常終了)。</translation>
    </message>
    <message>
        <source>Took too long and was stopped.</source>
        <translation>時間がかかりすぎたため停止しました。</translation>
    </message>
    <message>
        <source>Not counted: the host code computes with PyTorch instead of its own kernels.</source>
        <translation>無効: ホストコードが自前のカーネルではなく PyTorch で計算しています。</translation>
    </message>
    <message>
        <source>Compiled, but not run: there is no GPU here.</source>
        <translation>コンパイルしましたが、GPU がないため実行していません。</translation>
    </message>
    <message>
        <source>The evaluation worker is running normally.</source>
        <translation>評価ワーカーは正常に動作しています。</translation>
    </message>
    <message>
        <source>The evaluation worker was restarted after the kernel faulted.</source>
        <translation>カーネルの異常終了のため評価ワーカーを再起動しました。</translation>
    </message>
    <message>
        <source>The evaluation worker was restarted after a timeout.</source>
        <translation>タイムアウトのため評価ワーカーを再起動しました。</translation>
    </message>
    <message>
        <source>Evaluation worker: %1</source>
        <translation>評価ワーカー: %1</translation>
    </message>
    <message>
        <source>This run</source>
        <translation>今回の実行</translation>
    </message>
    <message>
        <source>Baseline (run %1)</source>
        <translation>ベースライン (実行 %1)</translation>
    </message>
    <message>
        <source>Baseline</source>
        <translation>ベースライン</translation>
    </message>
    <message>
        <source>Change</source>
        <translation>変化</translation>
    </message>
    <message>
        <source>Time per call (ms)</source>
        <translation>1 回あたりの時間 (ms)</translation>
    </message>
    <message>
        <source>Trials</source>
        <translation>試行数</translation>
    </message>
    <message>
        <source>Evaluate to compile, check and time the candidate against the task&apos;s reference.</source>
        <translation>評価すると、候補をコンパイルし、タスクの参照実装と照合して時間を計測します。</translation>
    </message>
    <message>
        <source>Device: %1.</source>
        <translation>デバイス: %1。</translation>
    </message>
    <message>
        <source>Verdict</source>
        <translation>判定</translation>
    </message>
    <message>
        <source>Compile time</source>
        <translation>コンパイル時間</translation>
    </message>
    <message>
        <source>Correctness trials passed</source>
        <translation>合格した正しさの試行</translation>
    </message>
    <message>
        <source>%1 of %2</source>
        <translation>%2 中 %1</translation>
    </message>
    <message>
        <source>Largest absolute error</source>
        <translation>最大絶対誤差</translation>
    </message>
    <message>
        <source>Median time</source>
        <translation>時間の中央値</translation>
    </message>
    <message>
        <source>Mean time</source>
        <translation>時間の平均</translation>
    </message>
    <message>
        <source>Spread (standard deviation)</source>
        <translation>ばらつき (標準偏差)</translation>
    </message>
    <message>
        <source>Fastest trial</source>
        <translation>最速の試行</translation>
    </message>
    <message>
        <source>Kernel time (CUPTI, median)</source>
        <translation>カーネル時間 (CUPTI、中央値)</translation>
    </message>
    <message>
        <source>Reference median time</source>
        <translation>参照実装の時間の中央値</translation>
    </message>
    <message>
        <source>Speedup over PyTorch</source>
        <translation>PyTorch に対する高速化</translation>
    </message>
    <message>
        <source>Physical bound</source>
        <translation>物理的な下限</translation>
    </message>
    <message>
        <source>Kernel launches per call</source>
        <translation>1 回あたりのカーネル起動数</translation>
    </message>
    <message>
        <source>Flags</source>
        <translation>フラグ</translation>
    </message>
    <message>
        <source>none</source>
        <translation>なし</translation>
    </message>
    <message>
        <source>Worker</source>
        <translation>ワーカー</translation>
    </message>
</context>
<context>
    <name>dice::FindBar</name>
    <message>
        <source>Find</source>
        <translation>検索</translation>
    </message>
    <message>
        <source>Replace with</source>
        <translation>置換後</translation>
    </message>
    <message>
        <source>Match case</source>
        <translation>大文字と小文字を区別</translation>
    </message>
    <message>
        <source>Regular expression</source>
        <translation>正規表現</translation>
    </message>
    <message>
        <source>Next</source>
        <translation>次へ</translation>
    </message>
    <message>
        <source>Previous</source>
        <translation>前へ</translation>
    </message>
    <message>
        <source>Replace</source>
        <translation>置換</translation>
    </message>
    <message>
        <source>Replace all</source>
        <translation>すべて置換</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>閉じる</translation>
    </message>
    <message>
        <source>Not found</source>
        <translation>見つかりません</translation>
    </message>
    <message numerus="yes">
        <source>%n replaced</source>
        <translation>
            <numerusform>%n 件を置換しました</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>dice::FinetuneArea</name>
    <message>
        <source>Phases</source>
        <translation>フェーズ</translation>
    </message>
    <message>
        <source>Rollouts</source>
        <translation>ロールアウト</translation>
    </message>
    <message>
        <source>Policy update</source>
        <translation>方策の更新</translation>
    </message>
    <message>
        <source>Kernel-infilling steps</source>
        <translation>カーネル穴埋めのステップ数</translation>
    </message>
    <message>
        <source>End-to-end steps</source>
        <translation>エンドツーエンドのステップ数</translation>
    </message>
    <message>
        <source>Tasks per step</source>
        <translation>ステップあたりのタスク数</translation>
    </message>
    <message>
        <source>Responses per task</source>
        <translation>タスクあたりの応答数</translation>
    </message>
    <message>
        <source>Dynamic threshold</source>
        <translation>動的しきい値</translation>
    </message>
    <message>
        <source>Learning rate</source>
        <translation>学習率</translation>
    </message>
    <message>
        <source>PPO clip</source>
        <translation>PPO クリップ</translation>
    </message>
    <message>
        <source>KL weight</source>
        <translation>KL の重み</translation>
    </message>
    <message>
        <source>Data schedule: single operators (level 1), then fusions (level 2), then model blocks (level 3), within each phase.</source>
        <translation>データスケジュール: 各フェーズの中で、単一演算子（レベル 1）、融合（レベル 2）、モデルブロック（レベル 3）の順に進みます。</translation>
    </message>
    <message>
        <source>Start fine-tuning</source>
        <translation>ファインチューニングを開始</translation>
    </message>
    <message>
        <source>Reinforcement-learning fine-tuning is not part of this version; its settings are shown for planning.</source>
        <translation>強化学習によるファインチューニングはこのバージョンには含まれていません。設定は計画用に表示しています。</translation>
    </message>
    <message>
        <source>No model is loaded. Reinforcement-learning fine-tuning is not part of this version.</source>
        <translation>モデルが読み込まれていません。強化学習によるファインチューニングはこのバージョンには含まれていません。</translation>
    </message>
</context>
<context>
    <name>dice::GenerateArea</name>
    <message>
        <source>What to generate</source>
        <translation>生成する内容</translation>
    </message>
    <message>
        <source>Current task</source>
        <translation>現在のタスク</translation>
    </message>
    <message>
        <source>Free prompt</source>
        <translation>自由プロンプト</translation>
    </message>
    <message>
        <source>Decoding</source>
        <translation>デコード</translation>
    </message>
    <message>
        <source>Block length</source>
        <translation>ブロック長</translation>
    </message>
    <message>
        <source>Denoising steps per block</source>
        <translation>ブロックあたりのデノイズステップ数</translation>
    </message>
    <message>
        <source>Remasking strategy</source>
        <translation>再マスク戦略</translation>
    </message>
    <message>
        <source>Confidence threshold</source>
        <translation>確信度しきい値</translation>
    </message>
    <message>
        <source>Temperature</source>
        <translation>温度</translation>
    </message>
    <message>
        <source>Top-k (0: off)</source>
        <translation>Top-k（0: 無効）</translation>
    </message>
    <message>
        <source>Top-p</source>
        <translation>Top-p</translation>
    </message>
    <message>
        <source>Maximum new tokens</source>
        <translation>最大生成トークン数</translation>
    </message>
    <message>
        <source>Seed</source>
        <translation>シード</translation>
    </message>
    <message>
        <source>Low confidence, static</source>
        <translation>低確信度・静的</translation>
    </message>
    <message>
        <source>Low confidence, dynamic</source>
        <translation>低確信度・動的</translation>
    </message>
    <message>
        <source>Sequential</source>
        <translation>逐次</translation>
    </message>
    <message>
        <source>Entropy bounded</source>
        <translation>エントロピー制限</translation>
    </message>
    <message>
        <source>Generate</source>
        <translation>生成</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>Describe the kernel to write…</source>
        <translation>書かせたいカーネルを説明してください…</translation>
    </message>
    <message>
        <source>Select a task in the task browser.</source>
        <translation>タスクブラウザでタスクを選んでください。</translation>
    </message>
    <message>
        <source>Model: %1</source>
        <translation>モデル: %1</translation>
    </message>
    <message>
        <source>Export the step trace</source>
        <translation>ステップの記録を書き出す</translation>
    </message>
    <message>
        <source>JSON lines (*.jsonl);;All files (*)</source>
        <translation>JSON Lines (*.jsonl);;すべてのファイル (*)</translation>
    </message>
    <message>
        <source>Export the code</source>
        <translation>コードを書き出す</translation>
    </message>
    <message>
        <source>All files (*)</source>
        <translation>すべてのファイル (*)</translation>
    </message>
    <message>
        <source>Open a step trace</source>
        <translation>ステップの記録を開く</translation>
    </message>
    <message>
        <source>Chat template</source>
        <translation>チャットテンプレート</translation>
    </message>
    <message>
        <source>Wrap the prompt in the Qwen3 chat template, as DICE models expect.</source>
        <translation>DICE モデルが想定するとおり、プロンプトを Qwen3 のチャットテンプレートで包みます。</translation>
    </message>
    <message>
        <source>Native kernel (.dice)</source>
        <translation>ネイティブカーネル (.dice)</translation>
    </message>
    <message>
        <source>KernelBench (Python)</source>
        <translation>KernelBench (Python)</translation>
    </message>
    <message>
        <source>Preset</source>
        <translation>プリセット</translation>
    </message>
    <message>
        <source>Entropy bound</source>
        <translation>エントロピーの上限</translation>
    </message>
    <message>
        <source>Custom</source>
        <translation>カスタム</translation>
    </message>
    <message>
        <source>KernelBench evaluation (paper)</source>
        <translation>KernelBench 評価 (論文)</translation>
    </message>
    <message>
        <source>RL rollout (paper)</source>
        <translation>RL ロールアウト (論文)</translation>
    </message>
    <message>
        <source>Confidence from the raw softmax</source>
        <translation>生の softmax による確信度</translation>
    </message>
    <message>
        <source>Also decode autoregressively, side by side</source>
        <translation>自己回帰デコードも並べて実行</translation>
    </message>
    <message>
        <source>Colour by</source>
        <translation>色分け</translation>
    </message>
    <message>
        <source>Step</source>
        <translation>ステップ</translation>
    </message>
    <message>
        <source>Confidence</source>
        <translation>確信度</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>一時停止</translation>
    </message>
    <message>
        <source>Replay</source>
        <translation>再生</translation>
    </message>
    <message>
        <source>Export trace…</source>
        <translation>記録を書き出す…</translation>
    </message>
    <message>
        <source>Open trace…</source>
        <translation>記録を開く…</translation>
    </message>
    <message>
        <source>Export code…</source>
        <translation>コードを書き出す…</translation>
    </message>
    <message>
        <source>Send to Profile</source>
        <translation>プロファイルへ送る</translation>
    </message>
    <message>
        <source>Send to Infill</source>
        <translation>穴埋めへ送る</translation>
    </message>
    <message>
        <source>This task has no KernelBench module.</source>
        <translation>このタスクには KernelBench モジュールがありません。</translation>
    </message>
    <message>
        <source>No model is loaded, so nothing can be generated yet. Load one with Model ▸ Manage models…</source>
        <translation>モデルが読み込まれていないため、まだ生成できません。「モデル ▸ モデルの管理…」で読み込んでください。</translation>
    </message>
    <message>
        <source>The prompt is empty.</source>
        <translation>プロンプトが空です。</translation>
    </message>
    <message>
        <source>Generating…</source>
        <translation>生成中…</translation>
    </message>
    <message>
        <source>Stopping…</source>
        <translation>停止中…</translation>
    </message>
    <message>
        <source>Stopped.</source>
        <translation>停止しました。</translation>
    </message>
    <message>
        <source>Decoding autoregressively…</source>
        <translation>自己回帰でデコード中…</translation>
    </message>
    <message>
        <source>Done.</source>
        <translation>完了しました。</translation>
    </message>
    <message>
        <source>Generation failed: %1</source>
        <translation>生成に失敗しました: %1</translation>
    </message>
    <message>
        <source>No generation yet.</source>
        <translation>まだ生成していません。</translation>
    </message>
    <message>
        <source>%1 tokens in %2 steps, %3 tokens/s, %4 forward passes per token, first block complete after %5 ms</source>
        <translation>%2 ステップで %1 トークン、毎秒 %3 トークン、1 トークンあたり順伝播 %4 回、最初のブロックの完成まで %5 ms</translation>
    </message>
    <message>
        <source>Autoregressive: %1 tokens, %2 tokens/s, %3 forward passes per token</source>
        <translation>自己回帰: %1 トークン、毎秒 %2 トークン、1 トークンあたり順伝播 %3 回</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1: %2</translation>
    </message>
</context>
<context>
    <name>dice::InfillArea</name>
    <message>
        <source>Fill all holes</source>
        <translation>すべての穴を埋める</translation>
    </message>
    <message>
        <source>The model fills each hole using the rest of the file as context.</source>
        <translation>モデルはファイルの残りの部分を文脈として各穴を埋めます。</translation>
    </message>
    <message>
        <source>Make a hole</source>
        <translation>穴を作る</translation>
    </message>
    <message>
        <source>Name of the hole (letters, digits, underscores; empty for none):</source>
        <translation>穴の名前 (英字・数字・下線。空欄なら名前なし):</translation>
    </message>
    <message>
        <source>Hole</source>
        <translation>穴</translation>
    </message>
    <message>
        <source>Line</source>
        <translation>行</translation>
    </message>
    <message>
        <source>State</source>
        <translation>状態</translation>
    </message>
    <message>
        <source>Denoising of the hole</source>
        <translation>穴のデノイズ</translation>
    </message>
    <message>
        <source>Diff against the skeleton</source>
        <translation>スケルトンとの差分</translation>
    </message>
    <message>
        <source>Make a hole from the selection…</source>
        <translation>選択範囲から穴を作る…</translation>
    </message>
    <message>
        <source>Fill this hole</source>
        <translation>この穴を埋める</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>Accept</source>
        <translation>採用</translation>
    </message>
    <message>
        <source>Reject</source>
        <translation>却下</translation>
    </message>
    <message>
        <source>Undo</source>
        <translation>元に戻す</translation>
    </message>
    <message>
        <source>Back to the skeleton</source>
        <translation>スケルトンに戻す</translation>
    </message>
    <message>
        <source>Send to Profile</source>
        <translation>プロファイルへ送る</translation>
    </message>
    <message>
        <source>empty</source>
        <translation>空</translation>
    </message>
    <message>
        <source>waiting</source>
        <translation>待機中</translation>
    </message>
    <message>
        <source>filling…</source>
        <translation>埋めています…</translation>
    </message>
    <message>
        <source>failed: %1</source>
        <translation>失敗: %1</translation>
    </message>
    <message>
        <source>(unnamed)</source>
        <translation>(名前なし)</translation>
    </message>
    <message>
        <source>No model is loaded, so holes cannot be filled yet. Load one with Model ▸ Manage models…</source>
        <translation>モデルが読み込まれていないため、まだ穴を埋められません。「モデル ▸ モデルの管理…」で読み込んでください。</translation>
    </message>
    <message>
        <source>No holes. Select code and make a hole from it, or write {{hole:NAME}} where the model should write.</source>
        <translation>穴がありません。コードを選択して穴を作るか、モデルに書かせたい場所に {{hole:NAME}} と書いてください。</translation>
    </message>
    <message>
        <source>Select the code the hole should replace first.</source>
        <translation>先に、穴に置き換えるコードを選択してください。</translation>
    </message>
    <message>
        <source>There is a hole named &quot;%1&quot; already.</source>
        <translation>「%1」という名前の穴はすでにあります。</translation>
    </message>
    <message>
        <source>There is no hole named &quot;%1&quot;.</source>
        <translation>「%1」という名前の穴はありません。</translation>
    </message>
    <message>
        <source>A native skeleton is filled for a task: select one in the task browser.</source>
        <translation>ネイティブのスケルトンはタスクに対して埋めます。タスクブラウザーでタスクを選んでください。</translation>
    </message>
    <message>
        <source>Filling %1…</source>
        <translation>%1 を埋めています…</translation>
    </message>
    <message numerus="yes">
        <source>proposal ready, lines: %n</source>
        <translation>
            <numerusform>提案あり (%n 行)</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>dice::MainWindow</name>
    <message>
        <source>Language</source>
        <translation>言語</translation>
    </message>
    <message>
        <source>The translation for %1 could not be loaded.</source>
        <translation>%1 の翻訳を読み込めませんでした。</translation>
    </message>
    <message>
        <source>DICE Workbench</source>
        <translation>DICE ワークベンチ</translation>
    </message>
    <message>
        <source>Generate</source>
        <translation>生成</translation>
    </message>
    <message>
        <source>Infill</source>
        <translation>穴埋め</translation>
    </message>
    <message>
        <source>Profile</source>
        <translation>プロファイル</translation>
    </message>
    <message>
        <source>Fine-tune</source>
        <translation>ファインチューニング</translation>
    </message>
    <message>
        <source>Watch the model sculpt a kernel out of masked tokens</source>
        <translation>モデルがマスクされたトークンからカーネルを彫り出す様子を見る</translation>
    </message>
    <message>
        <source>Let the model fill the holes of a kernel skeleton</source>
        <translation>カーネルの骨組みの穴をモデルに埋めさせる</translation>
    </message>
    <message>
        <source>Compile, check and time a kernel</source>
        <translation>カーネルをコンパイル・検証・計測する</translation>
    </message>
    <message>
        <source>Fine-tune the model with reinforcement learning</source>
        <translation>強化学習でモデルをファインチューニングする</translation>
    </message>
    <message>
        <source>Tasks</source>
        <translation>タスク</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>ファイル(&amp;F)</translation>
    </message>
    <message>
        <source>Open &amp;task folder…</source>
        <translation>タスクフォルダを開く(&amp;T)…</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>終了(&amp;Q)</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>表示(&amp;V)</translation>
    </message>
    <message>
        <source>&amp;Language</source>
        <translation>言語(&amp;L)</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>ヘルプ(&amp;H)</translation>
    </message>
    <message>
        <source>&amp;About DICE Workbench</source>
        <translation>DICE ワークベンチについて(&amp;A)</translation>
    </message>
    <message>
        <source>About &amp;Qt</source>
        <translation>Qt について(&amp;Q)</translation>
    </message>
    <message numerus="yes">
        <source>%n task file(s) could not be read; the first: %1</source>
        <translation>
            <numerusform>%n 個のタスクファイルを読み込めませんでした。最初のもの: %1</numerusform>
        </translation>
    </message>
    <message>
        <source>Open task folder</source>
        <translation>タスクフォルダを開く</translation>
    </message>
    <message>
        <source>The model could not be loaded: %1</source>
        <translation>モデルを読み込めませんでした: %1</translation>
    </message>
    <message>
        <source>&amp;Model</source>
        <translation>モデル(&amp;M)</translation>
    </message>
    <message>
        <source>&amp;Manage models…</source>
        <translation>モデルの管理(&amp;M)…</translation>
    </message>
    <message>
        <source>&amp;Unload the model</source>
        <translation>モデルを解放(&amp;U)</translation>
    </message>
</context>
<context>
    <name>dice::ModelManager</name>
    <message>
        <source>Choose a checkpoint folder (config.json, tokenizer.json, safetensors)</source>
        <translation>チェックポイントのフォルダーを選ぶ (config.json、tokenizer.json、safetensors)</translation>
    </message>
    <message>
        <source>Loading %1</source>
        <translation>%1 を読み込み中</translation>
    </message>
    <message>
        <source>Loaded %1 in %2 s.</source>
        <translation>%1 を %2 秒で読み込みました。</translation>
    </message>
    <message>
        <source>Not loaded: %1</source>
        <translation>読み込めませんでした: %1</translation>
    </message>
    <message>
        <source>No model is loaded.</source>
        <translation>モデルは読み込まれていません。</translation>
    </message>
    <message>
        <source>Models</source>
        <translation>モデル</translation>
    </message>
    <message>
        <source>Device</source>
        <translation>デバイス</translation>
    </message>
    <message>
        <source>Precision</source>
        <translation>精度</translation>
    </message>
    <message>
        <source>CPU threads (0: all)</source>
        <translation>CPU スレッド数 (0: すべて)</translation>
    </message>
    <message>
        <source>CPU</source>
        <translation>CPU</translation>
    </message>
    <message>
        <source>CUDA GPU</source>
        <translation>CUDA GPU</translation>
    </message>
    <message>
        <source>CUDA GPU (not available)</source>
        <translation>CUDA GPU (利用できません)</translation>
    </message>
    <message>
        <source>fp32</source>
        <translation>fp32</translation>
    </message>
    <message>
        <source>bf16</source>
        <translation>bf16</translation>
    </message>
    <message>
        <source>fp16</source>
        <translation>fp16</translation>
    </message>
    <message>
        <source>Add folder…</source>
        <translation>フォルダーを追加…</translation>
    </message>
    <message>
        <source>Remove from list</source>
        <translation>一覧から削除</translation>
    </message>
    <message>
        <source>Load</source>
        <translation>読み込む</translation>
    </message>
    <message>
        <source>Cancel loading</source>
        <translation>読み込みを中止</translation>
    </message>
    <message>
        <source>Unload</source>
        <translation>解放</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>閉じる</translation>
    </message>
    <message>
        <source>Loaded: %1</source>
        <translation>読み込み済み: %1</translation>
    </message>
    <message>
        <source>%1 (embedded)</source>
        <translation>%1 (内蔵)</translation>
    </message>
    <message>
        <source>%1 has no config.json, so it is not a checkpoint folder.</source>
        <translation>%1 には config.json がないため、チェックポイントのフォルダーではありません。</translation>
    </message>
    <message>
        <source>This folder cannot be used: %1</source>
        <translation>このフォルダーは使えません: %1</translation>
    </message>
    <message>
        <source>Architecture: %1</source>
        <translation>アーキテクチャ: %1</translation>
    </message>
    <message>
        <source>Parameters: %1</source>
        <translation>パラメーター数: %1</translation>
    </message>
    <message>
        <source>Layers: %1, hidden size %2, intermediate size %3</source>
        <translation>層数: %1、隠れ次元 %2、中間次元 %3</translation>
    </message>
    <message>
        <source>Attention heads: %1 (key/value heads %2, head size %3)</source>
        <translation>アテンションヘッド: %1 (キー/バリューヘッド %2、ヘッド次元 %3)</translation>
    </message>
    <message>
        <source>Vocabulary: %1, positions: %2</source>
        <translation>語彙: %1、位置数: %2</translation>
    </message>
    <message>
        <source>Block size: %1, mask token: %2</source>
        <translation>ブロック長: %1、マスクトークン: %2</translation>
    </message>
    <message>
        <source>from the tokenizer</source>
        <translation>トークナイザーから</translation>
    </message>
    <message>
        <source>Stored as %1 in %2 safetensors file(s), %3</source>
        <translation>%1 で safetensors ファイル %2 個に保存、%3</translation>
    </message>
    <message>
        <source>Missing: tokenizer.json</source>
        <translation>不足: tokenizer.json</translation>
    </message>
    <message>
        <source>Add a checkpoint folder in the Hugging Face format (SDAR, TraDo or Qwen3: config.json, tokenizer.json, model.safetensors or a sharded index).</source>
        <translation>Hugging Face 形式のチェックポイントのフォルダーを追加してください (SDAR、TraDo または Qwen3: config.json、tokenizer.json、model.safetensors または分割インデックス)。</translation>
    </message>
    <message>
        <source>Loading…</source>
        <translation>読み込み中…</translation>
    </message>
    <message>
        <source>Memory for the weights: %1 in fp32 (CPU), %2 in bf16 or fp16 (GPU)</source>
        <translation>重みに必要なメモリー: fp32 (CPU) で %1、bf16 または fp16 (GPU) で %2</translation>
    </message>
    <message>
        <source>Key/value cache: %1 per 1,000 tokens in fp32, %2 in bf16</source>
        <translation>キー/バリューキャッシュ: 1,000 トークンあたり fp32 で %1、bf16 で %2</translation>
    </message>
</context>
<context>
    <name>dice::ModelRunner</name>
    <message>
        <source>Loading was cancelled.</source>
        <translation>読み込みを中止しました。</translation>
    </message>
    <message>
        <source>No model is loaded.</source>
        <translation>モデルは読み込まれていません。</translation>
    </message>
</context>
<context>
    <name>dice::ProfileArea</name>
    <message>
        <source>Target:</source>
        <translation>ターゲット:</translation>
    </message>
    <message>
        <source>Compile after edits</source>
        <translation>編集後にコンパイル</translation>
    </message>
    <message>
        <source>Compile</source>
        <translation>コンパイル</translation>
    </message>
    <message>
        <source>Evaluate</source>
        <translation>評価</translation>
    </message>
    <message>
        <source>Diagnostics</source>
        <translation>診断</translation>
    </message>
    <message>
        <source>PTX</source>
        <translation>PTX</translation>
    </message>
    <message>
        <source>Kernel</source>
        <translation>カーネル</translation>
    </message>
    <message>
        <source>Registers</source>
        <translation>レジスタ</translation>
    </message>
    <message>
        <source>Shared memory</source>
        <translation>共有メモリ</translation>
    </message>
    <message>
        <source>Stack frame</source>
        <translation>スタックフレーム</translation>
    </message>
    <message>
        <source>Spill stores</source>
        <translation>スピルストア</translation>
    </message>
    <message>
        <source>Spill loads</source>
        <translation>スピルロード</translation>
    </message>
    <message>
        <source>Barriers</source>
        <translation>バリア</translation>
    </message>
    <message>
        <source>This build has no NVRTC: kernels cannot be compiled</source>
        <translation>このビルドには NVRTC がないため、カーネルをコンパイルできません</translation>
    </message>
    <message>
        <source>Compiling for %1…</source>
        <translation>%1 向けにコンパイル中…</translation>
    </message>
    <message>
        <source>%1 B</source>
        <translation>%1 B</translation>
    </message>
    <message numerus="yes">
        <source>Compiled for %1 in %2 ms%3: %n kernel(s), %4 warning(s)</source>
        <translation>
            <numerusform>%1 向けに %2 ms でコンパイルしました%3: カーネル %n 個、警告 %4 件</numerusform>
        </translation>
    </message>
    <message>
        <source> (cached)</source>
        <translation>（キャッシュ）</translation>
    </message>
    <message numerus="yes">
        <source>Compilation failed: %n error(s)</source>
        <translation>
            <numerusform>コンパイル失敗: エラー %n 件</numerusform>
        </translation>
    </message>
    <message>
        <source>Evaluating: %1 %2% %3</source>
        <translation>評価中: %1 %2% %3</translation>
    </message>
    <message>
        <source>Evaluated (run %1): %2</source>
        <translation>評価しました (実行 %1): %2</translation>
    </message>
    <message>
        <source>Select the task this candidate solves in the task browser</source>
        <translation>この候補が解くタスクをタスクブラウザーで選んでください</translation>
    </message>
    <message>
        <source>Evaluation needs a candidate in the native dialect (#pragma dice device / #pragma dice host)</source>
        <translation>評価にはネイティブ形式の候補が必要です (#pragma dice device / #pragma dice host)</translation>
    </message>
    <message>
        <source>No GPU: the candidate is compiled and inspected, not run</source>
        <translation>GPU なし: 候補はコンパイルと検査のみで、実行しません</translation>
    </message>
    <message>
        <source>Check and time the candidate against %1</source>
        <translation>候補を %1 と照合して時間を計測します</translation>
    </message>
    <message>
        <source>SASS</source>
        <translation>SASS</translation>
    </message>
    <message>
        <source>Resources and occupancy</source>
        <translation>リソースと占有率</translation>
    </message>
    <message>
        <source>Evaluation</source>
        <translation>評価</translation>
    </message>
    <message>
        <source>History</source>
        <translation>履歴</translation>
    </message>
    <message>
        <source>Occupancy at 256 threads</source>
        <translation>256 スレッドでの占有率</translation>
    </message>
    <message>
        <source>Threads per block</source>
        <translation>ブロックあたりのスレッド数</translation>
    </message>
    <message>
        <source>Theoretical occupancy (%)</source>
        <translation>理論占有率 (%)</translation>
    </message>
    <message>
        <source>%1% (%2)</source>
        <translation>%1% (%2)</translation>
    </message>
    <message>
        <source>No occupancy table for %1.</source>
        <translation>%1 の占有率の表がありません。</translation>
    </message>
    <message>
        <source>%1: %2 registers, %3 B shared; %4% at 256 threads (limited by %5), best %6% from %7 threads.</source>
        <translation>%1: レジスター %2 個、共有メモリー %3 B。256 スレッドで %4% (制約: %5)、%7 スレッドから最大 %6%。</translation>
    </message>
    <message>
        <source>Compile to see the occupancy of each kernel on %1.</source>
        <translation>コンパイルすると、%1 での各カーネルの占有率が表示されます。</translation>
    </message>
    <message>
        <source>// SASS is shown when nvdisasm or cuobjdump (CUDA toolkit) is on the PATH.</source>
        <translation>// nvdisasm か cuobjdump (CUDA ツールキット) が PATH にあると SASS を表示します。</translation>
    </message>
    <message>
        <source>// Disassembling…</source>
        <translation>// 逆アセンブル中…</translation>
    </message>
    <message>
        <source>// The SASS could not be made: %1</source>
        <translation>// SASS を作れませんでした: %1</translation>
    </message>
    <message>
        <source>Evaluating against %1…</source>
        <translation>%1 と照合して評価中…</translation>
    </message>
</context>
<context>
    <name>dice::RunHistory</name>
    <message>
        <source>When (UTC)</source>
        <translation>日時 (UTC)</translation>
    </message>
    <message>
        <source>Task</source>
        <translation>タスク</translation>
    </message>
    <message>
        <source>Verdict</source>
        <translation>判定</translation>
    </message>
    <message>
        <source>Speedup</source>
        <translation>高速化</translation>
    </message>
    <message>
        <source>Device</source>
        <translation>デバイス</translation>
    </message>
    <message>
        <source>Newest first</source>
        <translation>新しい順</translation>
    </message>
    <message>
        <source>Oldest first</source>
        <translation>古い順</translation>
    </message>
    <message>
        <source>Fastest first</source>
        <translation>速い順</translation>
    </message>
    <message>
        <source>By task</source>
        <translation>タスク順</translation>
    </message>
    <message>
        <source>Pin as baseline</source>
        <translation>ベースラインに固定</translation>
    </message>
    <message>
        <source>Open in the editor</source>
        <translation>エディターで開く</translation>
    </message>
    <message>
        <source>Compare two</source>
        <translation>2 件を比較</translation>
    </message>
    <message>
        <source>Refresh</source>
        <translation>更新</translation>
    </message>
    <message>
        <source>Select two runs and compare them side by side.</source>
        <translation>実行を 2 件選ぶと並べて比較できます。</translation>
    </message>
    <message>
        <source>No run store.</source>
        <translation>実行の記録がありません。</translation>
    </message>
    <message>
        <source>No run history: %1</source>
        <translation>実行履歴がありません: %1</translation>
    </message>
    <message>
        <source>All tasks</source>
        <translation>すべてのタスク</translation>
    </message>
    <message numerus="yes">
        <source>%n run(s)</source>
        <translation>
            <numerusform>%n 件の実行</numerusform>
        </translation>
    </message>
    <message>
        <source>Run %1</source>
        <translation>実行 %1</translation>
    </message>
    <message>
        <source>Median time (ms)</source>
        <translation>時間の中央値 (ms)</translation>
    </message>
    <message>
        <source>Reference median (ms)</source>
        <translation>参照実装の中央値 (ms)</translation>
    </message>
    <message>
        <source>Compile time (ms)</source>
        <translation>コンパイル時間 (ms)</translation>
    </message>
    <message>
        <source>Driver</source>
        <translation>ドライバー</translation>
    </message>
    <message>
        <source>Run %1 against run %2</source>
        <translation>実行 %2 に対する実行 %1</translation>
    </message>
</context>
<context>
    <name>dice::RunModel</name>
    <message>
        <source>%1 (baseline)</source>
        <translation>%1 (ベースライン)</translation>
    </message>
    <message>
        <source>The pinned baseline of %1</source>
        <translation>%1 の固定されたベースライン</translation>
    </message>
    <message>
        <source>Driver %1</source>
        <translation>ドライバー %1</translation>
    </message>
    <message>
        <source>Run</source>
        <translation>実行</translation>
    </message>
    <message>
        <source>When (UTC)</source>
        <translation>日時 (UTC)</translation>
    </message>
    <message>
        <source>Task</source>
        <translation>タスク</translation>
    </message>
    <message>
        <source>Verdict</source>
        <translation>判定</translation>
    </message>
    <message>
        <source>Speedup</source>
        <translation>高速化</translation>
    </message>
    <message>
        <source>Median (ms)</source>
        <translation>中央値 (ms)</translation>
    </message>
    <message>
        <source>Device</source>
        <translation>デバイス</translation>
    </message>
</context>
<context>
    <name>dice::SuiteEvaluationDialog</name>
    <message>
        <source>The suite has no tasks: open a task folder first.</source>
        <translation>スイートにタスクがありません。先にタスクのフォルダーを開いてください。</translation>
    </message>
    <message>
        <source>Choose the folder that holds a &lt;task&gt;.dice file for each task.</source>
        <translation>タスクごとに &lt;task&gt;.dice ファイルを収めたフォルダーを選んでください。</translation>
    </message>
    <message>
        <source>Evaluating the candidates in %1…</source>
        <translation>%1 の候補を評価中…</translation>
    </message>
    <message>
        <source>Stopping after the evaluations in flight…</source>
        <translation>実行中の評価が終わりしだい停止します…</translation>
    </message>
    <message>
        <source>Evaluate the Suite</source>
        <translation>スイートの評価</translation>
    </message>
    <message>
        <source>Candidates:</source>
        <translation>候補:</translation>
    </message>
    <message>
        <source>A folder with &lt;task&gt;.dice for each task</source>
        <translation>タスクごとの &lt;task&gt;.dice を収めたフォルダー</translation>
    </message>
    <message>
        <source>Choose…</source>
        <translation>選択…</translation>
    </message>
    <message>
        <source>Timing preset:</source>
        <translation>計時プリセット:</translation>
    </message>
    <message>
        <source>Evaluations per candidate:</source>
        <translation>候補あたりの評価回数:</translation>
    </message>
    <message>
        <source>Evaluate</source>
        <translation>評価</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>Folder of Candidates</source>
        <translation>候補のフォルダー</translation>
    </message>
    <message>
        <source>%1 of %2 evaluated; %3: %4</source>
        <translation>%2 件中 %1 件を評価済み。%3: %4</translation>
    </message>
    <message numerus="yes">
        <source>%n evaluation(s) of every task&apos;s candidate.</source>
        <translation>
            <numerusform>全タスクの候補を %n 回評価しました。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n task(s) had no candidate and count as failures.</source>
        <translation>
            <numerusform>%n 件のタスクに候補がなく、失敗として数えます。</numerusform>
        </translation>
    </message>
    <message>
        <source>The suite could not be evaluated: %1</source>
        <translation>スイートを評価できませんでした: %1</translation>
    </message>
</context>
<context>
    <name>dice::SystemStatus</name>
    <message>
        <source>Checking the machine…</source>
        <translation>マシンを確認中…</translation>
    </message>
    <message>
        <source>No GPU</source>
        <translation>GPU なし</translation>
    </message>
    <message>
        <source>Kernels can be compiled but not run or timed: %1</source>
        <translation>カーネルはコンパイルできますが、実行や計測はできません: %1</translation>
    </message>
    <message>
        <source>GPU: %1 (%2)</source>
        <translation>GPU: %1（%2）</translation>
    </message>
    <message numerus="yes">
        <source>%n GPU(s)</source>
        <translation>
            <numerusform>GPU %n 基</numerusform>
        </translation>
    </message>
    <message>
        <source>Driver: CUDA %1</source>
        <translation>ドライバ: CUDA %1</translation>
    </message>
    <message>
        <source>Driver: none</source>
        <translation>ドライバ: なし</translation>
    </message>
    <message>
        <source>CUDA toolkit: %1 · NVRTC %2</source>
        <translation>CUDA ツールキット: %1 · NVRTC %2</translation>
    </message>
    <message>
        <source>LibTorch %1 (CUDA %2)</source>
        <translation>LibTorch %1（CUDA %2）</translation>
    </message>
    <message>
        <source>LibTorch %1 (CPU)</source>
        <translation>LibTorch %1（CPU）</translation>
    </message>
    <message>
        <source>Model: %1</source>
        <translation>モデル: %1</translation>
    </message>
    <message>
        <source>No model loaded</source>
        <translation>モデル未読み込み</translation>
    </message>
</context>
<context>
    <name>dice::TaskBrowser</name>
    <message>
        <source>Filter tasks</source>
        <translation>タスクを絞り込む</translation>
    </message>
    <message>
        <source>Description</source>
        <translation>説明</translation>
    </message>
    <message>
        <source>Reference</source>
        <translation>リファレンス</translation>
    </message>
    <message>
        <source>PyTorch module</source>
        <translation>PyTorch モジュール</translation>
    </message>
    <message>
        <source>&lt;i&gt;Select a task to see its description and reference.&lt;/i&gt;</source>
        <translation>&lt;i&gt;タスクを選ぶと説明とリファレンスが表示されます。&lt;/i&gt;</translation>
    </message>
    <message>
        <source>Inputs</source>
        <translation>入力</translation>
    </message>
    <message>
        <source>Parameters</source>
        <translation>パラメータ</translation>
    </message>
    <message>
        <source>Tolerance (float32): atol %1, rtol %2</source>
        <translation>許容誤差（float32）: atol %1、rtol %2</translation>
    </message>
    <message>
        <source>Evaluate the Suite…</source>
        <translation>スイートを評価…</translation>
    </message>
    <message>
        <source>Score every task with a folder of candidates, as dice eval --suite does</source>
        <translation>dice eval --suite と同じく、候補のフォルダーで全タスクを採点します</translation>
    </message>
</context>
<context>
    <name>dice::TaskModel</name>
    <message>
        <source>Level 1: single operators</source>
        <translation>レベル 1: 単一演算子</translation>
    </message>
    <message>
        <source>Level 2: fusions</source>
        <translation>レベル 2: 融合</translation>
    </message>
    <message>
        <source>Level 3: model blocks</source>
        <translation>レベル 3: モデルブロック</translation>
    </message>
    <message>
        <source>Task</source>
        <translation>タスク</translation>
    </message>
    <message>
        <source>Title</source>
        <translation>タイトル</translation>
    </message>
    <message>
        <source>Family</source>
        <translation>系統</translation>
    </message>
</context>
<context>
    <name>dice::TrialModel</name>
    <message>
        <source>yes</source>
        <translation>はい</translation>
    </message>
    <message>
        <source>no</source>
        <translation>いいえ</translation>
    </message>
    <message>
        <source>Seed %1</source>
        <translation>シード %1</translation>
    </message>
    <message>
        <source>Trial</source>
        <translation>試行</translation>
    </message>
    <message>
        <source>Passed</source>
        <translation>合格</translation>
    </message>
    <message>
        <source>Largest abs. error</source>
        <translation>最大絶対誤差</translation>
    </message>
    <message>
        <source>Largest rel. error</source>
        <translation>最大相対誤差</translation>
    </message>
    <message>
        <source>Detail</source>
        <translation>詳細</translation>
    </message>
</context>
</TS>
